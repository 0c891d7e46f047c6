import Foundation
import NIOPosix

/// One JSON file per user under `directory`, written durably: a temporary file in the same folder,
/// fsync, rename over the old file, fsync the folder. A crash at any moment leaves the old file or
/// the new one, never a torn one.
///
/// Updates of a user are serialised in this process (`KeyedMutex`) and across processes sharing the
/// folder (an exclusive `flock` on the user's `.lock` file). File work runs on NIO's thread pool so
/// that a slow disk never blocks the threads that serve requests.
public final class JSONFileUserStateStore: UserStateStore {
  public let directory: URL
  private let locks = KeyedMutex<SessionID>()
  private let threadPool: NIOThreadPool

  /// Creates the folder if it is missing.
  public init(directory: URL, threadPool: NIOThreadPool = .singleton) throws {
    self.directory = directory
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// The file of a user. A `SessionID` is 32 hex digits, so the path cannot leave the folder.
  public func fileURL(for user: SessionID) -> URL {
    directory.appendingPathComponent("\(user.rawValue).json")
  }

  public func update<Result: Sendable>(
    _ user: SessionID,
    _ body: @Sendable (Data?) async throws -> (save: Data?, result: Result)
  ) async throws -> Result {
    let path = fileURL(for: user).path
    let lockPath = directory.appendingPathComponent("\(user.rawValue).lock").path
    return try await locks.withLock(user) {
      let lock = try await threadPool.runIfActive { try FileLock(path: lockPath) }
      do {
        let saved = try await threadPool.runIfActive { try DurableFile.read(path) }
        let (save, result) = try await body(saved)
        if let save {
          try await threadPool.runIfActive { try DurableFile.write(save, to: path) }
        }
        lock.unlock()
        return result
      } catch {
        lock.unlock()
        throw error
      }
    }
  }
}
