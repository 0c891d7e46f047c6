import Foundation
import Glibc
import NIOPosix
import Synchronization

/// One fsync shared by the writes of the same moment (group commit): once `sync()` returns,
/// everything its caller wrote before calling it to what the sync covers (a folder's entries, a
/// journal) is durable. Callers that come while a sync is under way share the next one: sixteen
/// answers at once cost one sync, not sixteen.
final class GroupSync: Sendable {
  private let run: @Sendable () throws -> Void
  private let threadPool: NIOThreadPool
  /// Whether a round of syncs is under way, and who waits for the next.
  private let state = Mutex<(running: Bool, waiting: [CheckedContinuation<Void, any Error>])>((false, []))
  /// How many syncs ran: fewer than were asked for when writes came together.
  let rounds = Atomic(0)

  /// `run`: the sync, on the file threads.
  init(threadPool: NIOThreadPool, _ run: @escaping @Sendable () throws -> Void) {
    self.run = run
    self.threadPool = threadPool
  }

  /// Syncs of a folder's entries.
  convenience init(folder: String, threadPool: NIOThreadPool) {
    self.init(threadPool: threadPool) { try DurableFile.syncFolder(folder) }
  }

  /// Syncs of all that was written to the file system `folder` is on (`syncfs(2)`): the bytes of
  /// many files at once.
  convenience init(fileSystemOf folder: String, threadPool: NIOThreadPool) {
    self.init(threadPool: threadPool) { try GroupSync.syncFileSystem(of: folder) }
  }

  /// Syncs all that was written to the file system `folder` is on, now.
  static func syncFileSystem(of folder: String) throws {
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FileError("open", folder) }
    defer { close(fd) }
    guard syncfs(fd) == 0 else { throw FileError("syncfs", folder) }
  }

  /// glibc's `syncfs`, which Swift's Glibc module does not declare.
  private static let syncfs = unsafeBitCast(
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs")!, to: (@convention(c) (Int32) -> Int32).self
  )

  func sync() async throws {
    try await withCheckedThrowingContinuation { continuation in
      let lead = state.withLock { state in
        state.waiting.append(continuation)
        defer { state.running = true }
        return !state.running
      }
      if lead { Task { await self.rounds() } }
    }
  }

  /// Syncs for those waiting, round after round, until no one is.
  private func rounds() async {
    while let waiting = state.withLock({ state -> [CheckedContinuation<Void, any Error>]? in
      guard !state.waiting.isEmpty else {
        state.running = false
        return nil
      }
      defer { state.waiting = [] }
      return state.waiting
    }) {
      rounds.add(1, ordering: .relaxed)
      let result: Result<Void, any Error>
      do {
        try await threadPool.runIfActive(run)
        result = .success(())
      } catch {
        result = .failure(error)
      }
      for continuation in waiting { continuation.resume(with: result) }
    }
  }
}
