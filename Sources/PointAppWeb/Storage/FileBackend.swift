import Foundation
import Glibc
import NIOPosix
import Synchronization

/// Records as files in the data folder, a folder per kind (`FileRecordStorage`), and holdings
/// whose writes commit together by one protocol, written once here:
///
/// 1. A holding holds its key (in this process, then across processes sharing the folder:
///    `NamedLocks`) and every record it touches (their tables' record locks, the same ways), and
///    keeps its writes in memory (`PendingWrites`).
/// 2. At its end, under the locks of the folders it writes (as every writer takes them), it checks
///    that no other process moved a record it changed (`RecordConflict` otherwise, nothing
///    written). Then the commit, each record's folder, name, version before and after and bytes,
///    is appended to the process's log (`CommitLog`, `.commits/<id>.log`) and made durable there,
///    with one fsync shared by the commits of the same moment; then each record is written (its
///    file replaced, nothing synced: the log holds it) and the commit marked applied in the log,
///    its bytes there overwritten. (The process's own counts' shards wait in memory a moment
///    longer, in a frame of their own: `DeferredWrites`.)
/// 3. At start, a log that no live process holds is finished: each of its commits not marked
///    applied has its records still at their version before the commit written, those already
///    written or changed since left; the file system synced, the log goes.
///
/// A crash before the commit is durable in the log leaves nothing of the holding, after it leaves
/// all of it once the next start has run.
public final class FileBackend: RecordBackend {
  public let folder: URL
  private let threadPool: NIOThreadPool
  /// The keys holdings hold.
  private let keys: HeldKeys
  /// Every kind's, made at start.
  private let tables: [String: FileRecordStorage]
  private let token = Token()
  private final class Token: Sendable {}
  private let log: CommitLog
  /// This process's counts' shards, left in memory by commits and written a moment later.
  private let deferred: DeferredWrites
  /// Writes them every quarter of a second, while the backend lives.
  private let flusher = Mutex<Task<Void, Never>?>(nil)
  /// Holdings' keys and records, held across processes.
  private let locks: NamedLocks
  /// Commits of this process's whose records could not all be written once they were durable (a
  /// write refused): finished before any other commit, which is refused while one cannot be, so
  /// that nothing commits over half of one.
  private let unfinished = Mutex<[(changes: [Intended], frame: CommitLog.Frame)]>([])

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
  /// moves what earlier programs kept in other shapes into records (`upgrade`). `flushEvery`: how
  /// long this process's counts' shards wait in memory; `logLimit`: the log's size past which it
  /// starts again (tests change both).
  public init(
    _ folder: URL, threadPool: NIOThreadPool = FileBackend.fileThreads, flushEvery: Duration = DeferredWrites.interval, logLimit: Int = 4 << 20
  ) throws {
    self.folder = folder
    self.threadPool = threadPool
    let backend = ObjectIdentifier(token)
    for inner in [".holding", ".commits"] {
      try FileManager.default.createDirectory(at: folder.appendingPathComponent(inner), withIntermediateDirectories: true)
    }
    let locks = try NamedLocks(path: folder.appendingPathComponent(".holding/names.lock").path)
    self.locks = locks
    let keys = HeldKeys(locks: locks, threadPool: threadPool)
    self.keys = keys
    // Held (`flock`) from now: the start below leaves it, as every other start while this lives.
    let log = try CommitLog(in: folder.appendingPathComponent(".commits").path, root: folder.path, limit: logLimit)
    self.log = log
    let deferred = DeferredWrites(root: folder.path, place: RecordKind.countShards.folder, suffix: "~" + log.id, log: log)
    self.deferred = deferred
    let shards = try FileRecordStorage(
      folder.appendingPathComponent(RecordKind.countShards.folder), threadPool: threadPool, backend: backend, locks: locks,
      deferred: deferred
    )
    let commits = folder.appendingPathComponent(".commits").path
    let counts = FileRecordStorage.CountShards(
      table: shards, own: log.id, isFinished: { id in !FileManager.default.fileExists(atPath: "\(commits)/\(id).log") },
      holding: { key, read in try await keys.holding(key, in: backend) { _ in try await read() } }
    )
    tables = try Dictionary(uniqueKeysWithValues: RecordKind.all.map { kind in
      let table = folder.appendingPathComponent(kind.folder)
      return (kind.folder, try FileRecordStorage(table, threadPool: threadPool, backend: backend, locks: locks, countShards: kind == .responses ? counts : nil))
    } + [(RecordKind.countShards.folder, shards)])
    try DurableFile.removeAbandonedTemporaries(in: commits)
    try Self.finishInterruptedCommits(in: folder.path)
    try upgrade()
    flusher.withLock {
      $0 = Task.detached { [weak self] in
        while !Task.isCancelled {
          // On an event loop's timer: under libfaketime a `Task.sleep` may never wake (`PeriodicTask`).
          do { try await PeriodicTask.sleep(for: flushEvery) } catch { return }
          guard let self else { return }
          // A write refused now is tried again at the next turn; the log holds the counts meanwhile.
          try? await self.flushDeferred()
        }
      }
    }
  }

  deinit {
    flusher.withLock { $0?.cancel() }
    // Written now, so that the log, its frames all applied, goes with the backend.
    try? deferred.flush()
  }

  /// How many fsyncs this process's commits took.
  var logSyncs: Int { log.syncs }

  #if DEBUG
    /// Tests: each fsync of the log takes this much longer, as on a slow disk.
    func slowLogSyncs(by delay: Duration) { log.slowSyncs = delay }
  #endif

  public func table(_ kind: RecordKind) -> any RecordStorage {
    guard let table = tables[kind.folder] else { preconditionFailure("\(kind.folder) is not among RecordKind.all") }
    return table
  }

  /// Writes the counts' shards this process holds in memory now, not at their turn: when the
  /// server stops, and in tests.
  func flushDeferred() async throws {
    try await threadPool.runIfActive { [deferred] in try deferred.flush() }
  }

  public func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    try await keys.holding(key, in: ObjectIdentifier(token)) { pending in
      guard let pending else { return try await body() }  // joined an outer holding, which commits
      let result = try await PendingWrites.$current.withValue(pending) { try await body() }
      try await commit(pending.changes)
      return result
    }
  }

  /// The keys of holdings: held in this process, then across the processes sharing the folder.
  private struct HeldKeys: Sendable {
    let holds = KeyedMutex<String>()
    let locks: NamedLocks
    let threadPool: NIOThreadPool

    /// Runs `body` holding `key` until it ends, with the holding's writes (`PendingWrites`, ended
    /// after it), or with `nil` inside a holding of `backend`'s, which holds the key with its own
    /// until it ends. A body that writes nothing sees a holding of the same key, in any process,
    /// all committed or not begun.
    func holding<Result>(_ key: String, in backend: ObjectIdentifier, _ body: (PendingWrites?) async throws -> Result) async throws -> Result {
      if let outer = PendingWrites.of(backend) {
        try await hold(key, until: outer)
        return try await body(nil)
      }
      let pending = PendingWrites(backend: backend)
      do {
        try await hold(key, until: pending)
        let result = try await body(pending)
        await pending.end()
        return result
      } catch {
        await pending.end()
        throw error
      }
    }

    /// Holds `key` until `pending` ends.
    private func hold(_ key: String, until pending: PendingWrites) async throws {
      guard pending.takes(key) else { return }  // held already by this holding
      await holds.acquire(key)
      do {
        try await locks.lock("holding " + key, waitingOn: threadPool)
        pending.onEnd { [holds, locks] in
          locks.unlock("holding " + key)
          await holds.release(key)
        }
      } catch {
        await holds.release(key)
        throw error
      }
    }
  }

  /// A record's change as the log keeps it.
  package struct Intended: Codable, Equatable {
    var folder: String
    var name: String
    var base: Int64?
    var version: Int64?
    var data: Data?

    package init(folder: String, name: String, base: Int64?, version: Int64?, data: Data?) {
      (self.folder, self.name, self.base, self.version, self.data) = (folder, name, base, version, data)
    }

    /// The first byte of a commit's body as this program writes it; earlier programs wrote the
    /// changes as a JSON array (`[`), which `changes(from:)` still reads.
    static let packed: UInt8 = 2

    /// A commit's body: `packed`, the number of changes (4 bytes), then each change: its folder's
    /// and name's lengths (4 bytes each) and UTF-8, a byte telling which of base, version and data
    /// it has (1, 2, 4), those it has (8 bytes each, the data's length in 4 then its bytes); numbers
    /// little-endian. (`JSONEncoder` took 2.3 % of the server's time during P2 on files, most of
    /// it the records' bytes in base64.)
    package static func body(_ changes: [Intended]) -> Data {
      var body = Data([packed])
      body.reserveCapacity(5 + changes.reduce(0) { $0 + 29 + $1.folder.utf8.count + $1.name.utf8.count + ($1.data?.count ?? 0) })
      body.append(littleEndian: UInt32(changes.count))
      for change in changes {
        for text in [change.folder, change.name] {
          body.append(littleEndian: UInt32(text.utf8.count))
          body.append(contentsOf: text.utf8)
        }
        body.append((change.base == nil ? 0 : 1) | (change.version == nil ? 0 : 2) | (change.data == nil ? 0 : 4))
        if let base = change.base { body.append(littleEndian: base) }
        if let version = change.version { body.append(littleEndian: version) }
        if let data = change.data {
          body.append(littleEndian: UInt32(data.count))
          body.append(data)
        }
      }
      return body
    }

    /// The changes of a commit's body, as this program writes it (`body`) or as earlier ones did
    /// (JSON). A body that is neither, or cut short, is an error.
    package static func changes(from body: Data) throws -> [Intended] {
      guard body.first == packed else { return try JSONDecoder().decode([Intended].self, from: body) }
      let malformed = FileError("read a commit in", "the commit log", code: EINVAL)
      var offset = body.startIndex + 1
      func take(_ count: Int) throws -> Range<Int> {
        guard count >= 0, count <= body.endIndex - offset else { throw malformed }
        defer { offset += count }
        return offset..<(offset + count)
      }
      func number<Number: FixedWidthInteger>(_: Number.Type) throws -> Number {
        body.littleEndian(Number.self, at: try take(MemoryLayout<Number>.size).lowerBound)
      }
      func text() throws -> String {
        let range = try take(Int(number(UInt32.self)))
        guard let text = String(validating: body[range], as: UTF8.self) else { throw malformed }
        return text
      }
      var changes: [Intended] = []
      for _ in 0..<Int(try number(UInt32.self)) {
        let (folder, name) = (try text(), try text())
        let has = body[try take(1).lowerBound]
        guard has & ~7 == 0 else { throw malformed }
        let base = try has & 1 == 0 ? nil : number(Int64.self)
        let version = try has & 2 == 0 ? nil : number(Int64.self)
        let data = try has & 4 == 0 ? nil : Data(body[take(Int(number(UInt32.self)))])
        changes.append(Intended(folder: folder, name: name, base: base, version: version, data: data))
      }
      guard offset == body.endIndex else { throw malformed }
      return changes
    }
  }

  private func commit(_ changes: [PendingWrites.Change]) async throws {
    guard !changes.isEmpty else { return }
    try await finishUnfinished()
    let root = folder.path
    let intended = changes.map { Intended(folder: $0.table.place, name: $0.name, base: $0.base, version: $0.now?.version, data: $0.now?.data) }
    let locks = Set(intended.map(\.folder)).sorted().compactMap { tables[$0]?.folderLock }
    do {
      try await threadPool.runIfActive { [log, deferred] in
        // The log starts again once every frame in it is applied, those of the counts held in
        // memory included: they are written first.
        if log.isFull { try log.restart(writingKept: deferred.flush) }
        try Self.withLocks(locks[...]) {
          for change in intended where try Self.version(of: change, in: root, deferred) != change.base {
            throw RecordConflict(record: "\(change.folder)/\(change.name)")
          }
          let frame = try log.append(Intended.body(intended))
          do {
            for change in intended where !deferred.owns(change) { try Self.apply(change, in: root) }
          } catch {
            throw CommitLeft(changes: intended, frame: frame, error: error)
          }
          deferred.keep(intended.filter(deferred.owns), of: frame)
        }
      }
    } catch let left as CommitLeft {
      // Finished at once, if what refused the write has passed: then the commit is whole.
      unfinished.withLock { $0.append((left.changes, left.frame)) }
      do { try await finishUnfinished() } catch { throw left.error }
    }
  }

  /// A commit durable in the log, its records not all written.
  private struct CommitLeft: Error {
    let changes: [Intended]
    let frame: CommitLog.Frame
    let error: any Error
  }

  private func finishUnfinished() async throws {
    for (changes, frame) in unfinished.withLock({ $0 }) {
      let locks = Set(changes.map(\.folder)).sorted().compactMap { tables[$0]?.folderLock }
      try await threadPool.runIfActive { [root = folder.path, deferred] in
        try Self.withLocks(locks[...]) { try Self.finish(changes.filter { !deferred.owns($0) }, in: root) }
        deferred.keep(changes.filter(deferred.owns), of: frame)
      }
      unfinished.withLock { $0.removeAll { $0.frame == frame } }
    }
  }

  private static func withLocks(_ locks: ArraySlice<SharedFolderLock>, _ body: () throws -> Void) throws {
    guard let first = locks.first else { return try body() }
    try first.withLock { try withLocks(locks.dropFirst(), body) }
  }

  /// The version of the record a change is to, as this process sees it.
  private static func version(of change: Intended, in root: String, _ deferred: DeferredWrites) throws -> Int64? {
    if let held = deferred.held(change) { return held.version }
    return try FileRecordStorage.version(at: path(change, in: root))
  }

  private static func path(_ change: Intended, in root: String) -> String {
    FileRecordStorage.path(change.name, in: "\(root)/\(change.folder)")
  }

  #if DEBUG
    /// Tests: how many more writes of a record by this name are refused, as by a full disk.
    static let refusals = Mutex<[String: Int]>([:])
  #endif

  /// The record as the change leaves it, nothing synced (the log holds the change).
  fileprivate static func apply(_ change: Intended, in root: String) throws {
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
      let temporary = try DurableFile.writeTemporary(FileRecordStorage.file(data, version: version), for: path, sync: false)
      _ = try DurableFile.place(temporary, at: path, exclusive: false)
    } else {
      guard unlink(path) == 0 || errno == ENOENT else { throw FileError("unlink", path) }
    }
  }

  /// Writes each of a commit's records still at its version before it (or left empty by a crash
  /// of the machine, whose log held it); one written already, or changed since, is left.
  private static func finish(_ changes: [Intended], in root: String) throws {
    for change in changes {
      let bytes = try DurableFile.read(Self.path(change, in: root))
      let version = try bytes.map { try FileRecordStorage.parse($0, path: "").version }
      if bytes?.isEmpty == true || version == change.base {
        try Self.apply(change, in: root)
      }
    }
  }

  /// Finishes the logs whose processes are gone (a `flock` taken at once), and the intents an
  /// earlier program left (`.commits/<id>.intent`, one commit each), under their folders' locks;
  /// then syncs the file system and removes them.
  private static func finishInterruptedCommits(in root: String) throws {
    let commits = "\(root)/.commits"
    var finished: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: commits).sorted() where name.hasSuffix(".log") || name.hasSuffix(".intent") {
      let path = "\(commits)/\(name)"
      let fd = open(path, O_RDWR | O_CLOEXEC)
      guard fd >= 0 else { continue }  // finished by another meanwhile
      defer { close(fd) }
      guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }  // its process is at work
      let bytes = try DurableFile.read(path) ?? Data()
      // An intent empty or torn: its process died before it was durable, and wrote nothing.
      let frames = name.hasSuffix(".log") ? CommitLog.unapplied(in: bytes) : [bytes]
      for changes in frames.compactMap({ try? Intended.changes(from: $0) }) {
        let locks = try Set(changes.map(\.folder)).sorted().map { try FileLock(path: "\(root)/\($0)/.lock") }
        defer { locks.forEach { $0.unlock() } }
        try finish(changes, in: root)
      }
      finished.append(path)
    }
    guard !finished.isEmpty else { return }
    try DurableFile.syncFileSystem(of: root)
    for path in finished { unlink(path) }
  }
}

/// The records a process alone writes, kept in memory by its commits and written to their files
/// a moment later (`flush`, every `interval`): its counts' shards (`RecordKind.countShards`, named
/// `<survey>~<its log's id>`), which each answer changes. A file's rename for every answer cost P2
/// on files a fifth of its rate (BENCHMARKS.md).
///
/// Nothing is lost by the wait: a commit's frame in the log holds every change durably, and once
/// its other records are written, its changes to these are copied into a frame of their own
/// (`keep`), kept until they are written, and the commit's frame is blanked as before. A crash
/// leaves those frames to the next start, which writes each change still at its version before
/// (`finishInterruptedCommits`), in order. Other processes read the files, so they see this
/// process's counts up to `interval` late; this process reads them from memory (`held`).
public final class DeferredWrites: Sendable {
  public static let interval = Duration.milliseconds(250)

  /// The data folder.
  private let root: String
  /// The folder of the records kept (in the data folder), and the end of their names.
  private let place: String
  private let suffix: String
  private let log: CommitLog
  /// The folder's lock, the one its table takes (one per process: two would keep each other out).
  let folderLock: SharedFolderLock
  /// Each record's last change not written yet, and the frames that hold those changes, in order.
  private let state = Mutex<(changes: [String: FileBackend.Intended], frames: [CommitLog.Frame])>(([:], []))
  /// One writer at a time.
  private let writing = Mutex<Void>(())

  init(root: String, place: String, suffix: String, log: CommitLog) {
    (self.root, self.place, self.suffix, self.log) = (root, place, suffix, log)
    folderLock = SharedFolderLock(folder: "\(root)/\(place)")
  }

  /// Whether the change is to a record kept here.
  func owns(_ change: FileBackend.Intended) -> Bool {
    change.folder == place && change.name.hasSuffix(suffix)
  }

  /// The last change to the record not written to its file yet (`nil`: none; its file is as this
  /// process left it).
  func held(_ change: FileBackend.Intended) -> FileBackend.Intended? {
    owns(change) ? held(change.name) : nil
  }

  func held(_ name: String) -> FileBackend.Intended? {
    state.withLock { $0.changes[name] }
  }

  /// Keeps a commit's changes to these records, the others written: copied into a frame of their
  /// own, and the commit's frame applied. Where the copy cannot be written, the commit's frame is
  /// kept instead.
  func keep(_ changes: [FileBackend.Intended], of frame: CommitLog.Frame) {
    guard !changes.isEmpty else { return log.applied(frame) }
    // Commits of one record come here in turn (each holds it until its end).
    let copy = try? log.append(FileBackend.Intended.body(changes), sync: false)
    state.withLock { state in
      for change in changes { state.changes[change.name] = change }
      state.frames.append(copy ?? frame)
    }
    if copy == nil { log.keepOpen(frame) } else { log.applied(frame) }
  }

  /// Writes the records' last changes to their files (nothing synced: as a commit's, which the
  /// log holds), then marks the frames that held them applied.
  func flush() throws {
    try writing.withLock { _ in
      let (changes, frames) = state.withLock { ($0.changes, $0.frames) }
      guard !frames.isEmpty else { return }
      try folderLock.withLock {
        for change in changes.values { try FileBackend.apply(change, in: root) }
      }
      state.withLock { state in
        for (name, change) in changes where state.changes[name]?.version == change.version { state.changes[name] = nil }
        state.frames.removeFirst(frames.count)
      }
      for frame in frames { log.released(frame) }
    }
  }
}

/// A process's log of its commits (`.commits/<id>.log`, held by a `flock` while the process
/// lives): a frame per commit, durable before the commit's records are written, with one fsync
/// shared by the commits of the same moment, and marked applied once they are; and a frame per
/// commit of the changes the process keeps in memory a moment (`DeferredWrites`), marked applied
/// once those are written. Past a few megabytes, once every commit in it is applied and the
/// changes kept are written, the file system is synced and the log starts again from empty.
///
/// A frame: its state (0 written, 1 applied, 2 never durable), the body's length (4 bytes) and
/// checksum (8 bytes, FNV-1a), little-endian, then the body (`FileBackend.Intended.body`). An applied
/// frame is blanked (its checksum and body zeros): the log keeps no record's bytes longer than
/// their commit takes. A frame whose checksum fails is left (blanked, or damaged by a crash
/// before it was durable: its commit was never acknowledged); one cut short ends the log.
final class CommitLog: @unchecked Sendable {
  struct Frame: Equatable, Sendable {
    let offset: Int
    /// Its length, header included.
    let count: Int
  }

  /// Its name in the folder, without `.log`.
  let id: String
  private let path: String
  private let root: String
  private let fd: Int32
  private let limit: Int
  /// Guards what follows.
  private let condition = NSCondition()
  private var end = 0
  private var synced = 0
  private var syncing = false
  /// Frames of commits in flight: written, their records not yet.
  private var open = 0
  /// Frames that hold changes kept in memory (`DeferredWrites`), until those are written.
  private var kept = 0
  /// While the log starts again (`restart`), commits' new frames wait.
  private var restarting = false
  /// How many fsyncs the frames took: fewer than frames when commits came together.
  private(set) var syncs = 0
  /// Whether the log's name is durable in its folder: synced with the first frame, on the file
  /// threads, not at start on the caller's.
  private var named = false
  #if DEBUG
    var slowSyncs = Duration.zero
  #endif

  init(in folder: String, root: String, limit: Int = 4 << 20) throws {
    id = RandomID<CommitKind>.random().rawValue
    path = "\(folder)/\(id).log"
    self.root = root
    self.limit = limit
    fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("create", path) }
    guard flock(fd, LOCK_EX) == 0 else { throw FileError("flock", path) }
  }

  deinit {
    // Every commit applied (as they are once their holdings end): nothing for a start to finish.
    if open == 0, kept == 0 { unlink(path) }
    close(fd)
  }

  /// Past its limit: to start again (`restart`) before the next commit.
  var isFull: Bool {
    condition.lock()
    defer { condition.unlock() }
    return end >= limit
  }

  /// Starts the log again from empty, the file system synced, once the commits in flight are
  /// applied (a moment at most: else at a later commit) and `writeKept` has written the changes
  /// its frames keep (`released`). New commits' frames wait meanwhile.
  func restart(writingKept writeKept: () throws -> Void) throws {
    condition.lock()
    guard end >= limit, !restarting else { return condition.unlock() }  // done, or being done
    restarting = true
    let deadline = Date().addingTimeInterval(1)
    while open > 0, condition.wait(until: deadline) {}
    let idle = open == 0
    condition.unlock()
    defer {
      condition.lock()
      restarting = false
      condition.broadcast()
      condition.unlock()
    }
    guard idle else { return }
    // Nothing appends a kept frame now: only commits in flight do.
    try writeKept()
    condition.lock()
    defer { condition.unlock() }
    guard open == 0, kept == 0 else { return }
    try DurableFile.syncFileSystem(of: root)
    guard ftruncate(fd, 0) == 0 else { throw FileError("ftruncate", path) }
    (end, synced) = (0, 0)
  }

  /// Appends a commit's frame and returns once it is durable; with `sync` false, a frame of
  /// changes kept in memory, copied from a commit's durable frame (`DeferredWrites.keep`), once it
  /// is written.
  func append(_ body: Data, sync: Bool = true) throws -> Frame {
    let frame = Self.frame(body)
    condition.lock()
    defer { condition.unlock() }
    while sync, restarting { condition.wait() }
    let offset = end
    try frame.withUnsafeBytes { buffer in
      var written = 0
      while written < buffer.count {
        let count = pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
        guard count > 0 else { throw FileError("write", path) }
        written += count
      }
    }
    end = offset + frame.count
    if sync { open += 1 } else { kept += 1 }
    while sync, synced < offset + frame.count {
      if syncing {
        condition.wait()
        continue
      }
      syncing = true
      let (target, alreadyNamed) = (end, named)
      #if DEBUG
        let slow = slowSyncs
      #endif
      condition.unlock()
      #if DEBUG
        if slow > .zero { usleep(UInt32(slow.components.attoseconds / 1_000_000_000_000) + UInt32(slow.components.seconds) * 1_000_000) }
      #endif
      var failed: (any Error)?
      if !alreadyNamed {
        do { try DurableFile.syncFolder(String(DurableFile.split(path).folder)) } catch { failed = error }
      }
      if failed == nil, fsync(fd) != 0 { failed = FileError("fsync", path) }
      condition.lock()
      if failed == nil { named = true }
      syncing = false
      syncs += 1
      condition.broadcast()
      if let failed {
        // Not known to be durable: never applied, by this process or a start.
        blank(Frame(offset: offset, count: frame.count), 2)
        open -= 1
        throw failed
      }
      synced = max(synced, target)
    }
    return Frame(offset: offset, count: frame.count)
  }

  /// The frame's commit is written: a start leaves it.
  func applied(_ frame: Frame) {
    condition.lock()
    defer { condition.unlock() }
    blank(frame, 1)
    open -= 1
    if open == 0 { condition.broadcast() }
  }

  /// The commit's frame is kept until its changes kept in memory are written (`released`): where
  /// their copy could not be written.
  func keepOpen(_ frame: Frame) {
    condition.lock()
    defer { condition.unlock() }
    (open, kept) = (open - 1, kept + 1)
    if open == 0 { condition.broadcast() }
  }

  /// The changes a kept frame holds are written: a start leaves it.
  func released(_ frame: Frame) {
    condition.lock()
    defer { condition.unlock() }
    blank(frame, 1)
    kept -= 1
  }

  /// Marks a frame that a start must leave, and writes zeros over its checksum and body: the
  /// records it held (a member's address among them, who may since have left) stay only in
  /// their own files. Its length stays as it was, so the frames after it are found. Not synced:
  /// a crash may leave it marked or not, blank or not, or torn between (then its checksum fails
  /// and a start leaves it as well).
  private func blank(_ frame: Frame, _ state: UInt8) {
    var bytes = Data([state])
    bytes.append(littleEndian: UInt32(frame.count - Self.header))
    bytes.append(Data(count: frame.count - bytes.count))
    _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(frame.offset)) }
  }

  /// The bodies of a log's frames not marked applied, in order; a frame that its checksum finds
  /// damaged is left (it was never durable, or it was blanked), one cut short ends the log.
  static func unapplied(in bytes: Data) -> [Data] {
    frames(in: bytes).filter { $0.whole && $0.state == 0 }.map(\.body)
  }

  /// A log's frames as they lie, up to one whose length runs past the end; whether each one's
  /// body is as its checksum says.
  static func frames(in bytes: Data) -> [(state: UInt8, body: Data, whole: Bool)] {
    var frames: [(state: UInt8, body: Data, whole: Bool)] = []
    var offset = bytes.startIndex
    while bytes.endIndex - offset >= header {
      let count = Int(bytes.littleEndian(UInt32.self, at: offset + 1))
      let start = offset + header
      guard count <= bytes.endIndex - start else { break }
      let body = Data(bytes[start..<(start + count)])
      frames.append((bytes[offset], body, checksum(body) == bytes.littleEndian(UInt64.self, at: offset + 5)))
      offset = start + count
    }
    return frames
  }

  /// A frame's state, length and checksum, before its body.
  static let header = 13

  /// A commit's frame, as written (not applied yet).
  static func frame(_ body: Data) -> Data {
    var frame = Data([0])
    frame.append(littleEndian: UInt32(body.count))
    frame.append(littleEndian: checksum(body))
    frame.append(body)
    return frame
  }

  /// FNV-1a, 64 bits: enough to tell a frame a crash cut or left unwritten.
  static func checksum(_ bytes: Data) -> UInt64 {
    bytes.withUnsafeBytes { $0.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 } }
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

extension Data {
  mutating func append<Number: FixedWidthInteger>(littleEndian number: Number) {
    Swift.withUnsafeBytes(of: number.littleEndian) { append(contentsOf: $0) }
  }

  func littleEndian<Number: FixedWidthInteger>(_: Number.Type, at offset: Int) -> Number {
    var number = Number.zero
    Swift.withUnsafeMutableBytes(of: &number) { $0.copyBytes(from: self[offset..<(offset + MemoryLayout<Number>.size)]) }
    return Number(littleEndian: number)
  }
}
