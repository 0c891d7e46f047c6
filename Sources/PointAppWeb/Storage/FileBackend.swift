import Foundation
import Glibc
import NIOPosix
import Synchronization

/// Records as files in the data folder, a folder per kind (`FileRecordStorage`), and holdings
/// whose writes commit together by one protocol, written once here:
///
/// 1. A holding holds its key (in this process, then a `flock` on `.holding/<digest>.lock` for
///    processes sharing the folder) and every record it touches (their tables' record locks), and
///    keeps its writes in memory (`PendingWrites`).
/// 2. At its end, under the locks of the folders it writes (as every writer takes them), it checks
///    that no other process moved a record it changed (`RecordConflict` otherwise, nothing
///    written). One change is written as any record is. Several: first an intent,
///    `.commits/<id>.intent` (JSON: each record's folder, name, version before and after, bytes),
///    durable and locked while the commit runs; then each record; then the folders synced and the
///    intent removed.
/// 3. At start, an intent that no live process holds is finished: each of its records still at
///    the version it had before is written, those already written or changed since are left.
///
/// A crash before the intent is durable leaves nothing of the holding, after it leaves all of it
/// once the next start has run.
public final class FileBackend: RecordBackend {
  public let folder: URL
  private let threadPool: NIOThreadPool
  private let holds = KeyedMutex<String>()
  /// Every kind's, made at start.
  private let tables: [String: FileRecordStorage]
  private let token = Token()
  private final class Token: Sendable {}

  /// Opens the data folder (made if missing) and finishes the commits a crash interrupted.
  public init(_ folder: URL, threadPool: NIOThreadPool = JSONFileUserStateStore.fileThreads) throws {
    self.folder = folder
    self.threadPool = threadPool
    let backend = ObjectIdentifier(token)
    tables = try Dictionary(uniqueKeysWithValues: RecordKind.all.map { kind in
      (kind.folder, try FileRecordStorage(folder.appendingPathComponent(kind.folder), threadPool: threadPool, backend: backend))
    })
    for inner in [".holding", ".commits"] {
      try FileManager.default.createDirectory(at: folder.appendingPathComponent(inner), withIntermediateDirectories: true)
    }
    try DurableFile.removeAbandonedTemporaries(in: folder.appendingPathComponent(".commits").path)
    try finishInterruptedCommits()
  }

  public func table(_ kind: RecordKind) -> any RecordStorage {
    guard let table = tables[kind.folder] else { preconditionFailure("\(kind.folder) is not among RecordKind.all") }
    return table
  }

  public func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    if let outer = PendingWrites.of(ObjectIdentifier(token)) {
      try await hold(key, until: outer)
      return try await body()
    }
    let pending = PendingWrites(backend: ObjectIdentifier(token))
    do {
      try await hold(key, until: pending)
      let result = try await PendingWrites.$current.withValue(pending) { try await body() }
      try await commit(pending.changes)
      await pending.end()
      return result
    } catch {
      await pending.end()
      throw error
    }
  }

  private func hold(_ key: String, until pending: PendingWrites) async throws {
    guard pending.takes(key) else { return }  // held already by this holding
    await holds.acquire(key)
    let lockPath = folder.appendingPathComponent(".holding/\(HoldingKey.fileName(key)).lock").path
    do {
      let lock = try await threadPool.runIfActive { try FileLock(path: lockPath) }
      pending.onEnd { [holds] in
        lock.unlock()
        await holds.release(key)
      }
    } catch {
      await holds.release(key)
      throw error
    }
  }

  /// A record's change as an intent keeps it.
  private struct Intended: Codable {
    var folder: String
    var name: String
    var base: Int64?
    var version: Int64?
    var data: Data?
  }

  private func commit(_ changes: [PendingWrites.Change]) async throws {
    guard !changes.isEmpty else { return }
    let root = folder.path
    let intended = changes.map { Intended(folder: $0.table.place, name: $0.name, base: $0.base, version: $0.now?.version, data: $0.now?.data) }
    try await threadPool.runIfActive {
      let folders = Set(intended.map(\.folder)).sorted()
      let locks = try folders.map { try FileLock(path: "\(root)/\($0)/.lock") }
      defer { locks.forEach { $0.unlock() } }
      for change in intended where try FileRecordStorage.version(at: Self.path(change, in: root)) != change.base {
        throw RecordConflict(record: "\(change.folder)/\(change.name)")
      }
      guard intended.count > 1 else {
        try Self.apply(intended[0], in: root)
        try DurableFile.syncFolder("\(root)/\(intended[0].folder)")
        return
      }
      let intent = try Self.writeIntent(intended, in: root)
      defer { close(intent.fd) }
      for change in intended { try Self.apply(change, in: root) }
      for folder in folders { try DurableFile.syncFolder("\(root)/\(folder)") }
      unlink(intent.path)
    }
  }

  private static func path(_ change: Intended, in root: String) -> String {
    precondition(!change.name.isEmpty && !change.name.contains("/") && !change.name.hasPrefix("."), "bad record name \(change.name)")
    return "\(root)/\(change.folder)/\(change.name).json"
  }

  /// The record as the change leaves it (its folder not synced).
  private static func apply(_ change: Intended, in root: String) throws {
    let path = path(change, in: root)
    if let data = change.data, let version = change.version {
      try DurableFile.write(FileRecordStorage.file(data, version: version), to: path, syncFolder: false)
    } else {
      guard unlink(path) == 0 || errno == ENOENT else { throw FileError("unlink", path) }
    }
  }

  /// The intent of a commit, durable, and locked (`flock`) from before its first byte until the
  /// commit is done (closing the descriptor ends the lock): a start meanwhile leaves it to its
  /// process.
  private static func writeIntent(_ changes: [Intended], in root: String) throws -> (path: String, fd: Int32) {
    let bytes = try JSONEncoder().encode(changes)
    let id = RandomID<CommitKind>.random().rawValue
    // Locked under a name that a start does not look at, then given its name.
    let (temporary, path) = ("\(root)/.commits/.\(id).tmp", "\(root)/.commits/\(id).intent")
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("create", temporary) }
    do {
      guard flock(fd, LOCK_EX) == 0 else { throw FileError("flock", temporary) }
      try DurableFile.writeAll(bytes, to: fd, path: temporary)
      guard fsync(fd) == 0 else { throw FileError("fsync", temporary) }
      guard rename(temporary, path) == 0 else { throw FileError("rename", temporary) }
      try DurableFile.syncFolder("\(root)/.commits")
      return (path, fd)
    } catch {
      unlink(temporary)
      unlink(path)
      close(fd)
      throw error
    }
  }

  /// Finishes the intents whose processes are gone (a `flock` taken at once): each record still
  /// at its version before the commit is written, under its folder's lock.
  private func finishInterruptedCommits() throws {
    let root = folder.path
    for name in try FileManager.default.contentsOfDirectory(atPath: "\(root)/.commits") where name.hasSuffix(".intent") {
      let path = "\(root)/.commits/\(name)"
      let fd = open(path, O_RDWR | O_CLOEXEC)
      guard fd >= 0 else { continue }  // finished by another start meanwhile
      defer { close(fd) }
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // its process is at work
      // Empty or torn: its process died before it was durable, and wrote nothing of its commit.
      if let bytes = try DurableFile.read(path), let changes = try? JSONDecoder().decode([Intended].self, from: bytes) {
        let folders = Set(changes.map(\.folder)).sorted()
        let locks = try folders.map { try FileLock(path: "\(root)/\($0)/.lock") }
        defer { locks.forEach { $0.unlock() } }
        for change in changes where try FileRecordStorage.version(at: Self.path(change, in: root)) == change.base {
          try Self.apply(change, in: root)
        }
        for folder in folders { try DurableFile.syncFolder("\(root)/\(folder)") }
      }
      unlink(path)
    }
  }
}

/// The ids of commits' intents.
public enum CommitKind {}
