import Foundation
import Glibc
import NIOPosix
import Synchronization

/// Records as files in one folder (`<name>.json`), each `{"version":<n>,"record":<its JSON>}`, so
/// that any JSON tool reads them (`jq .record`), written durably on the user store's file threads.
/// (Files of earlier programs are read too: a version line, then the bytes; or the bytes alone,
/// version 1.)
///
/// A new record is created with `link(2)`, which refuses an existing name. A replacement or a
/// deletion checks the version under the folder's lock (in this process, then a `flock` on
/// `.lock`, which processes sharing the folder take in turns), so that of two writers that read
/// one version, one wins and the other is told.
///
/// Every request reads its session's record: a record read shortly before is answered from
/// memory after one `stat` on the caller's thread, while the file is the same version
/// (`FileVersion`, as the user store does), so a write by another process is never missed. A
/// record not known so is read on the caller's thread too when the kernel holds all of its file
/// in memory (`DurableFile.readIfInMemory`), and on a file thread only when it would wait for
/// the disk.
public final class FileRecordStorage: RecordStorage, HeldTable {
  let folder: String
  /// Its folder's name in the data folder, for a table of a `FileBackend` (whose holdings its
  /// calls then take part in).
  let place: String
  private let backend: ObjectIdentifier?
  private let threadPool: NIOThreadPool
  private let recent = Mutex(RecentlyUsed<String, (file: FileVersion, data: Data, version: Int64)>(generation: 500))
  private let writers = KeyedMutex<String>()
  /// Held by this process's writes while they check a version and write.
  let folderLock: SharedFolderLock
  /// In a backend: where its holdings' records are locked across processes.
  private let locks: NamedLocks?
  /// The folder's names of the last `records(prefixed:)`, with the folder's version then: the
  /// next page of the same list is cut from it while the folder is unchanged.
  private let listed = Mutex<(prefix: String, folder: FileVersion, names: PackedNames)?>(nil)
  /// The counts' shards: the records this process writes a moment after their commits, read from
  /// memory meanwhile.
  let deferred: DeferredWrites?
  /// The responses': where their counts' shards are.
  let countShards: CountShards?

  /// Where the counts of the responses in this table are kept, beside the record of each survey's
  /// in it: a record per process and survey, written by that process alone.
  struct CountShards: Sendable {
    let table: FileRecordStorage
    /// This process's, the end of its records' names (`<survey>~<own>`).
    let own: String
    /// Whether the process whose records end so is gone, its commits all finished.
    let isFinished: @Sendable (String) -> Bool
    /// Runs a read of counts holding a key as a holding does, writing nothing
    /// (`ResponseStore.foldKey`), so that a start's fold of them, in any process, is seen all
    /// committed or not begun.
    let holding: @Sendable (_ key: String, _ read: () async throws -> Void) async throws -> Void
  }

  init(
    _ directory: URL, threadPool: NIOThreadPool = FileBackend.fileThreads, backend: ObjectIdentifier?, locks: NamedLocks? = nil,
    deferred: DeferredWrites? = nil, countShards: CountShards? = nil
  ) throws {
    self.deferred = deferred
    self.countShards = countShards
    folder = directory.path
    folderLock = deferred?.folderLock ?? SharedFolderLock(folder: directory.path)
    self.locks = locks
    place = directory.lastPathComponent
    self.backend = backend
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try DurableFile.removeAbandonedTemporaries(in: folder)
  }

  public convenience init(_ directory: URL, threadPool: NIOThreadPool = FileBackend.fileThreads) throws {
    try self.init(directory, threadPool: threadPool, backend: nil)
  }

  public func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    if let pending = PendingWrites.of(backend) { return try await pending.read(self, name) }
    return try await stored(name)
  }

  public func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? {
    if let pending = PendingWrites.of(backend) { return try await pending.touch(self, name) }
    return try await stored(name)
  }

  /// In a backend, a holding's record is held across processes too (`NamedLocks`), after this
  /// process's lock.
  func hold(_ name: String) async throws {
    await writers.acquire(name)
    guard let locks else { return }
    do {
      try await locks.lock(place + "/" + name, waitingOn: threadPool)
    } catch {
      await writers.release(name)
      throw error
    }
  }

  func letGo(_ name: String) async {
    locks?.unlock(place + "/" + name)
    await writers.release(name)
  }

  func stored(_ name: String) async throws -> (data: Data, version: Int64)? {
    if let held = deferred?.held(name) { return held.data.map { ($0, held.version ?? 1) } }
    let path = path(name)
    if let kept = recent.withLock({ $0[name] }), FileVersion(path: path) == kept.file {
      return (kept.data, kept.version)
    }
    @Sendable func readAt() -> timespec {
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      return now
    }
    let read: (Data, FileVersion, timespec)?
    switch DurableFile.readIfInMemory(path) {
    case .missing: read = nil
    case let .read(data, version): read = (data, version, readAt())
    case .notInMemory:
      read = try await threadPool.runIfActive {
        try DurableFile.readVersioned(path).map { data, version in (data, version, readAt()) }
      }
    }
    guard let (bytes, file, readAt) = read else { return nil }
    let (data, version) = try Self.parse(bytes, path: path)
    if file.isSettled(at: readAt) {
      recent.withLock { $0[name] = (file, data, version) }
    }
    return (data, version)
  }

  public func create(_ name: String, _ data: Data) async throws -> Bool {
    if let pending = PendingWrites.of(backend) { return try await pending.write(self, name, data, ifAt: nil) }
    try await writeHeld(name)
    let path = path(name)
    let file = Self.file(data, version: 1)
    // After any holding that holds the name.
    return try await writers.withLock(name) { try await threadPool.runIfActive { try DurableFile.write(file, to: path, exclusive: true) } }
  }

  public func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    if let pending = PendingWrites.of(backend) { return try await pending.write(self, name, data, ifAt: version) }
    try await writeHeld(name)
    let path = path(name)
    let file = Self.file(data, version: version + 1)
    return try await locked(name) {
      guard try Self.version(at: path) == version else { return false }
      try DurableFile.write(file, to: path)
      return true
    }
  }

  public func delete(_ name: String, at version: Int64) async throws -> Bool {
    if let pending = PendingWrites.of(backend) { return try await pending.write(self, name, nil, ifAt: version) }
    try await writeHeld(name)
    let (path, folder) = (path(name), folder)
    return try await locked(name) {
      guard try Self.version(at: path) == version else { return false }
      guard unlink(path) == 0 else { throw FileError("unlink", path) }
      try DurableFile.syncFolder(folder)
      return true
    }
  }

  public func names(after name: String?, limit: Int) async throws -> [String] {
    let folder = folder
    return try await threadPool.runIfActive {
      let names = try FileManager.default.contentsOfDirectory(atPath: folder).compactMap { file -> String? in
        guard file.hasSuffix(".json"), !file.hasPrefix(".") else { return nil }
        let record = String(file.dropLast(5))
        return name.map { record > $0 } ?? true ? record : nil
      }
      return Array(names.sorted().prefix(limit))
    }
  }

  /// The folder listed and the page's files read in one trip to the file threads, past the
  /// memory of recent reads.
  public func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    let folder = folder
    let after = max(name ?? "", prefix)
    return try await threadPool.runIfActive { [self] in
      let version = FileVersion(path: folder)
      var all = listed.withLock { kept in kept.flatMap { $0.prefix == prefix && $0.folder == version ? $0.names : nil } }
      if all == nil {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let names = try PackedNames(listing: folder, prefix: prefix, suffix: ".json")
        // Kept only for a folder whose last change is settled: one in the same clock tick as the
        // listing could change again with the same times.
        if let version, version.isSettled(at: now) { listed.withLock { $0 = (prefix, version, names) } }
        all = names
      }
      let names = all ?? PackedNames()
      let start = names.firstIndex { $0 > after }
      return try (start..<min(names.count, start + limit)).map { names[$0] }.compactMap { name in
        let path = path(name)
        guard let (bytes, _) = try DurableFile.readVersioned(path) else { return nil }  // deleted meanwhile
        return (name, try Self.parse(bytes, path: path).data)
      }
    }
  }

  /// A write outside a holding checks the file's version: the record's change held in memory is
  /// written to it first.
  private func writeHeld(_ name: String) async throws {
    guard let deferred, deferred.held(name) != nil else { return }
    try await threadPool.runIfActive { try deferred.flush() }
  }

  /// Runs `body` on the file threads holding the record's lock in this process and the folder's
  /// across processes.
  private func locked(_ name: String, _ body: @escaping @Sendable () throws -> Bool) async throws -> Bool {
    try await writers.withLock(name) {
      try await threadPool.runIfActive { [folderLock] in try folderLock.withLock(body) }
    }
  }

  /// The version of the record at `path` (`nil`: none).
  static func version(at path: String) throws -> Int64? {
    try DurableFile.read(path).map { try parse($0, path: path).version }
  }

  func path(_ name: String) -> String { Self.path(name, in: folder) }

  /// The file of the record `name` in `folder`: every path the storage reads or writes is made
  /// here (the upgrade of an old data folder, `FileBackend`, writes the files it moves itself). A
  /// name is never empty, has no `/` and does not start with `.` (the folder's own files).
  static func path(_ name: String, in folder: String) -> String {
    // Bytes, not `String.contains`, which goes through Foundation's string search on every read.
    precondition(!name.isEmpty && !name.utf8.contains(UInt8(ascii: "/")) && name.utf8.first != UInt8(ascii: "."), "bad record name \(name)")
    return "\(folder)/\(name).json"
  }

  private static let versionKey = Array(#"{"version":"#.utf8)
  private static let recordKey = Array(#","record":"#.utf8)

  static func file(_ data: Data, version: Int64) -> Data {
    var file = Data(versionKey)
    file.append(contentsOf: String(version).utf8)
    file.append(contentsOf: recordKey)
    file.append(data)
    file.append(UInt8(ascii: "}"))
    return file
  }

  static func parse(_ file: Data, path: String) throws -> (data: Data, version: Int64) {
    let malformed = FileError("parse a record's version in", path, code: EINVAL)
    if file.starts(with: versionKey) {
      var index = file.startIndex + versionKey.count
      var version: Int64 = 0
      while index < file.endIndex, (0x30...0x39).contains(file[index]), version < Int64.max / 10 {
        version = version * 10 + Int64(file[index] - 0x30)
        index += 1
      }
      guard version > 0, file[index...].starts(with: recordKey), file.last == UInt8(ascii: "}") else { throw malformed }
      return (Data(file[(index + recordKey.count)..<(file.endIndex - 1)]), version)
    }
    guard file.first != UInt8(ascii: "{") else { return (file, 1) }
    guard let newline = file.firstIndex(of: UInt8(ascii: "\n")),
      let version = Int64(String(decoding: file[file.startIndex..<newline], as: UTF8.self))
    else { throw malformed }
    return (Data(file[(newline + 1)...]), version)
  }
}

/// Sorted names in one buffer, read from the folder by `readdir(3)`: a survey's hundred thousand
/// responses' names take 3 MB here, where Foundation's listing made as many strings, three times
/// over (listed, filtered, sorted), and the memory they took stayed with the process.
struct PackedNames: Sendable {
  private var bytes: [UInt8] = []
  private var ends: [Int32] = []

  /// None.
  init() {}

  /// The names of the files in `folder` that start with `prefix` and end with `suffix` (the name
  /// without it), in ascending order of their bytes (for names in ASCII, as strings compare).
  init(listing folder: String, prefix: String, suffix: String) throws {
    guard let directory = opendir(folder) else { throw FileError("opendir", folder) }
    defer { closedir(directory) }
    let (prefix, suffix) = (Array(prefix.utf8), Array(suffix.utf8))
    var found: [UInt8] = []
    var ranges: [Range<Int>] = []
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        // The end of the folder, or an error: a listing cut short is not a listing.
        if errno != 0 { throw FileError("readdir", folder) }
        break
      }
      // Read up to its end only: an entry takes `d_reclen` bytes, fewer than `dirent`'s size, and
      // a copy of the whole field can run past the end of the memory `readdir` has (a crash).
      let start = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
      let name = UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self)))
      guard name.count > prefix.count + suffix.count, name.starts(with: prefix), name.suffix(suffix.count).elementsEqual(suffix)
      else { continue }
      let first = found.count
      found.append(contentsOf: name.dropLast(suffix.count))
      ranges.append(first..<found.count)
    }
    ranges.sort { found[$0].lexicographicallyPrecedes(found[$1]) }
    bytes.reserveCapacity(found.count)
    ends.reserveCapacity(ranges.count)
    for range in ranges {
      bytes.append(contentsOf: found[range])
      ends.append(Int32(bytes.count))
    }
  }

  var count: Int { ends.count }

  subscript(index: Int) -> String {
    let start = index == 0 ? 0 : Int(ends[index - 1])
    return String(decoding: bytes[start..<Int(ends[index])], as: UTF8.self)
  }

  /// The index of the first name for which `isPast` holds, all those before it not holding it.
  func firstIndex(where isPast: (String) -> Bool) -> Int {
    var (low, high) = (0, count)
    while low < high {
      let middle = (low + high) / 2
      if isPast(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
