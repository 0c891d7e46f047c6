import Foundation
import Glibc
import NIOPosix
import Synchronization

/// One JSON file per user under `directory` (`<id>.json`), and a folder of archive files
/// (`<id>.archive/`) once the user has history to archive. Every file is written durably: a
/// temporary file in the same folder, fsync, rename over the old file, fsync the folder. A crash at
/// any moment leaves the old state file or the new one, never a torn one; archive files are
/// complete before the state file that refers to them is replaced.
///
/// Updates of a user are serialised in this process (`KeyedMutex`) and across processes sharing the
/// folder (an exclusive `flock` on the user's `.lock` file). File work runs on a thread pool of its
/// own (`fileThreads`) so that a slow disk never blocks the threads that serve requests.
///
/// A page view's read (`read`) of a file read shortly before costs one `stat` on the caller's
/// thread instead: when the file is the same version (`FileVersion`), the bytes kept from the last
/// read are returned. Updates always read the file itself.
public final class JSONFileUserStateStore: UserStateStore {
  public let directory: URL
  /// `directory.path`: the paths of a request's files are joined to it as strings (Foundation's URL
  /// appending cost more than reading the file).
  private let folder: String
  private let locks = KeyedMutex<UserID>()
  private let threadPool: NIOThreadPool
  /// The state files last read, with their versions: about the last thousand users'.
  private let recent = Mutex(RecentlyUsed<UserID, (version: FileVersion, data: Data)>(generation: 500))

  /// Creates the folder if it is missing, and removes the temporary files of writes that a crash
  /// interrupted (see `DurableFile.removeAbandonedTemporaries`).
  public init(directory: URL, threadPool: NIOThreadPool = JSONFileUserStateStore.fileThreads) throws {
    self.directory = directory
    folder = directory.path
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try DurableFile.removeAbandonedTemporaries(in: folder)
    for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".archive") {
      try DurableFile.removeAbandonedTemporaries(in: "\(folder)/\(name)")
    }
  }

  /// The threads every store of the process does its file work on. More than the cores: they
  /// mostly wait for the disk, and with several users' writes in flight the file system commits
  /// their fsyncs together, where NIO's shared pool (one thread per core) would queue them, and
  /// every read behind them. Started on first use, kept for the life of the process.
  public static let fileThreads: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: 16)
    pool.start()
    return pool
  }()

  /// The state file of a user. A `UserID` is 32 hex digits, so the path cannot leave the folder.
  public func fileURL(for user: UserID) -> URL {
    URL(fileURLWithPath: path(user, ".json"))
  }

  /// The archive folder of a user.
  public func archiveURL(for user: UserID) -> URL {
    URL(fileURLWithPath: path(user, ".archive"))
  }

  /// The path of one of a user's files: `<folder>/<id><suffix>`.
  private func path(_ user: UserID, _ suffix: String) -> String {
    folder + "/" + user.rawValue + suffix
  }

  public func update<Result: Sendable>(
    _ user: UserID,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    let path = self.path(user, ".json")
    let archive = self.path(user, ".archive")
    let lockPath = self.path(user, ".lock")
    return try await locks.withLock(user) {
      let lock = try await threadPool.runIfActive { try FileLock(path: lockPath) }
      do {
        let saved = try await threadPool.runIfActive { try DurableFile.read(path) }
        let (save, result) = try await body(saved)
        if let save {
          let writeArchive = { @Sendable in
            guard !save.archive.isEmpty else { return }
            try DurableFile.makeFolder(archive)
            for (name, data) in save.archive {
              try DurableFile.write(data, to: "\(archive)/\(Self.checked(name))", syncFolder: false)
            }
            try DurableFile.syncFolder(archive)
          }
          if let before = save.before {
            // The writes the state depends on, while its bytes are written: it takes its name
            // once both are durable.
            async let others: Void = before()
            let temporary: String
            do {
              temporary = try await threadPool.runIfActive {
                try writeArchive()
                return try DurableFile.writeTemporary(save.state, for: path)
              }
            } catch {
              try? await others
              throw error
            }
            do {
              try await others
            } catch {
              unlink(temporary)
              throw error
            }
            let folder = folder
            try await threadPool.runIfActive {
              _ = try DurableFile.place(temporary, at: path, exclusive: false)
              try DurableFile.syncFolder(folder)
            }
          } else {
            try await threadPool.runIfActive {
              try writeArchive()
              try DurableFile.write(save.state, to: path)
            }
          }
        }
        lock.unlock()
        return result
      } catch {
        lock.unlock()
        throw error
      }
    }
  }

  public func read(_ user: UserID) async throws -> Data? {
    let path = self.path(user, ".json")
    // A stat of a file read moments ago is answered from the kernel's inode cache: no disk, and
    // no trip to the file threads and back, which costs more than the read itself.
    if let kept = recent.withLock({ $0[user] }), FileVersion(path: path) == kept.version {
      return kept.data
    }
    guard let (data, version, readAt) = try await threadPool.runIfActive({ () throws -> (Data, FileVersion, timespec)? in
      guard let (data, version) = try DurableFile.readVersioned(path) else { return nil }
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      return (data, version, now)
    }) else { return nil }
    if version.isSettled(at: readAt) {
      recent.withLock { $0[user] = (version, data) }
    }
    return data
  }

  public func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    let archive = self.path(user, ".archive")
    return try await threadPool.runIfActive {
      var found: [String: Data] = [:]
      for name in names {
        found[name] = try DurableFile.read("\(archive)/\(Self.checked(name))")
      }
      return found
    }
  }

  /// Archive names come from `UserFiles`; one that could leave the folder is a programming error.
  private static func checked(_ name: String) -> String {
    precondition(!name.isEmpty && !name.contains("/") && !name.hasPrefix("."), "bad archive file name \(name)")
    return name
  }
}
