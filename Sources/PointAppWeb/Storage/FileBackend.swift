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
  /// Intents of this process's whose records could not all be written once they were durable (a
  /// write refused): finished before any other commit, which is refused while one cannot be, so
  /// that nothing commits over half of one.
  private let unfinished = Mutex<[String]>([])

  /// The threads every file of the process is read and written on. More than the cores: they
  /// mostly wait for the disk, and with several users' writes in flight the file system commits
  /// their fsyncs together, where NIO's shared pool (one thread per core) would queue them, and
  /// every read behind them. Started on first use, kept for the life of the process.
  public static let fileThreads: NIOThreadPool = {
    let pool = NIOThreadPool(numberOfThreads: 16)
    pool.start()
    return pool
  }()

  /// Opens the data folder (made if missing), finishes the commits a crash interrupted, and
  /// moves what earlier programs kept in other shapes into records (`upgrade`).
  public init(_ folder: URL, threadPool: NIOThreadPool = FileBackend.fileThreads) throws {
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
    try upgrade()
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
    try await finishUnfinished()
    let root = folder.path
    let intended = changes.map { Intended(folder: $0.table.place, name: $0.name, base: $0.base, version: $0.now?.version, data: $0.now?.data) }
    let folders = Set(intended.map(\.folder)).sorted()
    let locks = folders.compactMap { tables[$0]?.folderLock }
    do {
      try await threadPool.runIfActive {
        try Self.withLocks(locks[...]) { try Self.write(intended, folders: folders, in: root) }
      }
    } catch let left as IntentLeft {
      // Finished at once, if what refused the write has passed: then the commit is whole.
      unfinished.withLock { $0.append(left.path) }
      do { try await finishUnfinished() } catch { throw left.error }
    }
  }

  /// An intent durable, its records not all written.
  private struct IntentLeft: Error {
    let path: String
    let error: any Error
  }

  private func finishUnfinished() async throws {
    for path in unfinished.withLock({ $0 }) {
      try await threadPool.runIfActive { [root = folder.path, tables] in
        try Self.finish(path, in: root) { folders, body in try Self.withLocks(folders.compactMap { tables[$0]?.folderLock }[...], body) }
      }
      unfinished.withLock { $0.removeAll { $0 == path } }
    }
  }

  private static func withLocks(_ locks: ArraySlice<SharedFolderLock>, _ body: () throws -> Void) throws {
    guard let first = locks.first else { return try body() }
    try first.withLock { try withLocks(locks.dropFirst(), body) }
  }

  /// Under the folders' locks: checked, then written as one record or by an intent.
  private static func write(_ intended: [Intended], folders: [String], in root: String) throws {
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
    do {
      for change in intended { try Self.apply(change, in: root) }
      for folder in folders { try DurableFile.syncFolder("\(root)/\(folder)") }
    } catch {
      throw IntentLeft(path: intent.path, error: error)
    }
    unlink(intent.path)
  }

  private static func path(_ change: Intended, in root: String) -> String {
    precondition(!change.name.isEmpty && !change.name.contains("/") && !change.name.hasPrefix("."), "bad record name \(change.name)")
    return "\(root)/\(change.folder)/\(change.name).json"
  }

  #if DEBUG
    /// Tests: how many more writes of a record by this name are refused, as by a full disk.
    static let refusals = Mutex<[String: Int]>([:])
  #endif

  /// The record as the change leaves it (its folder not synced).
  private static func apply(_ change: Intended, in root: String) throws {
    let path = path(change, in: root)
    #if DEBUG
      let refused = refusals.withLock { refusals in
        guard let left = refusals[change.name], left > 0 else { return false }
        refusals[change.name] = left - 1
        return true
      }
      if refused { throw FileError("write (refused by a test)", path, code: ENOSPC) }
    #endif
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

  /// Finishes the intents whose processes are gone (a `flock` taken at once).
  private func finishInterruptedCommits() throws {
    let root = folder.path
    for name in try FileManager.default.contentsOfDirectory(atPath: "\(root)/.commits") where name.hasSuffix(".intent") {
      try Self.finish("\(root)/.commits/\(name)", in: root) { folders, body in
        let locks = try folders.map { try FileLock(path: "\(root)/\($0)/.lock") }
        defer { locks.forEach { $0.unlock() } }
        try body()
      }
    }
  }

  /// Finishes an intent no process is at work on: each record still at its version before the
  /// commit is written, under its folders' locks (`locked`), and the intent removed.
  private static func finish(_ path: String, in root: String, locked: ([String], () throws -> Void) throws -> Void) throws {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { return }  // finished by another meanwhile
    defer { close(fd) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return }  // its process is at work
    // Empty or torn: its process died before it was durable, and wrote nothing of its commit.
    if let bytes = try DurableFile.read(path), let changes = try? JSONDecoder().decode([Intended].self, from: bytes) {
      let folders = Set(changes.map(\.folder)).sorted()
      try locked(folders) {
        for change in changes where try FileRecordStorage.version(at: Self.path(change, in: root)) == change.base {
          try Self.apply(change, in: root)
        }
        for folder in folders { try DurableFile.syncFolder("\(root)/\(folder)") }
      }
    }
    unlink(path)
  }
}

extension FileBackend {
  /// Moves what earlier programs kept in other shapes into records, once (a start finds nothing
  /// left to move after): users' archive folders (`users/<id>.archive/<name>.json`) become
  /// `user-archive/<id>~<name>`, and quota folders (`quotas/<survey>/<user>.kept`, or `.open`,
  /// which a crash left, counted as kept so that no place is given twice) become `Quotas`'
  /// records, and `session.key` becomes `settings/session-secret`. Files move by `rename`, or are
  /// written whole before the old ones go, so a crash meanwhile leaves each in one place or both.
  /// An earlier program's folder has the `session.key` its first start made; removed last, it
  /// marks the upgrade done, and a start without it looks at nothing (no listing of the users).
  private func upgrade() throws {
    let manager = FileManager.default
    let key = folder.appendingPathComponent("session.key").path
    guard manager.fileExists(atPath: key) else { return }
    let (users, archive, quotas) = (folder.appendingPathComponent("users").path, folder.appendingPathComponent("user-archive").path, folder.appendingPathComponent("quotas").path)
    for name in try manager.contentsOfDirectory(atPath: users) where name.hasSuffix(".archive") || name.hasSuffix(".lock") {
      let path = "\(users)/\(name)"
      if name.hasSuffix(".archive") {
        let user = name.dropLast(".archive".count)
        for file in try manager.contentsOfDirectory(atPath: path) where file.hasSuffix(".json") && !file.hasPrefix(".") {
          guard rename("\(path)/\(file)", "\(archive)/\(user)~\(file)") == 0 else { throw FileError("rename", "\(path)/\(file)") }
        }
        try DurableFile.syncFolder(archive)
        try manager.removeItem(atPath: path)
      } else {
        unlink(path)
      }
    }
    var isFolder: ObjCBool = false
    for survey in try manager.contentsOfDirectory(atPath: quotas)
    where manager.fileExists(atPath: "\(quotas)/\(survey)", isDirectory: &isFolder) && isFolder.boolValue {
      let holders = try manager.contentsOfDirectory(atPath: "\(quotas)/\(survey)").filter { $0.hasSuffix(".kept") || $0.hasSuffix(".open") }
      for holder in holders {
        try DurableFile.write(FileRecordStorage.file(Data("true".utf8), version: 1), to: "\(quotas)/p~\(survey)~\(holder.dropLast(5)).json", syncFolder: false)
      }
      let count = FileRecordStorage.file(Data(String(holders.count).utf8), version: 1)
      try DurableFile.write(count, to: "\(quotas)/q~\(survey).json", syncFolder: false)
      try DurableFile.syncFolder(quotas)
      try manager.removeItem(atPath: "\(quotas)/\(survey)")
      unlink("\(quotas)/\(survey).lock")
    }
    if let secret = try DurableFile.read(key), secret.count == 32 {
      let record = FileRecordStorage.file(try SavedJSON.encode(secret), version: 1)
      _ = try DurableFile.write(record, to: folder.appendingPathComponent("settings/\(Sessions.secretName.recordName).json").path, exclusive: true)
    }
    unlink(key)
  }
}

/// The ids of commits' intents.
public enum CommitKind {}
