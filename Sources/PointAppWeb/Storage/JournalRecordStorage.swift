import Foundation
import Glibc
import NIOPosix
import Synchronization

/// Records that live briefly and are written often (the responses pending until their answers'
/// saves are known), kept in memory and made durable by appending every change to a journal: a
/// change is durable when it returns, with one fsync of the journal shared by the writes of the
/// same moment (`GroupSync`), where a file of its own would cost two syncs each.
///
/// The journal is a folder of segments (`journal-<n>`), each a sequence of frames: what changed,
/// the record's name, version and bytes, and a checksum. At start the segments are read in order;
/// a frame cut short or damaged by a crash ends its segment (its write was never acknowledged).
/// Appends go to a new segment past a few megabytes, carrying the records still there in the
/// oldest segment forward; segments are removed from the oldest up, each once none of its records
/// is still there (a newer segment's deletions may be of records in an older one).
///
/// A journal belongs to one process, which holds a lock on it (`.lock`) while it lives: processes
/// sharing a data folder each have their own (`own(in:)`), and one that starts takes up those
/// whose processes are gone (`orphans(in:)`).
public final class JournalRecordStorage: RecordStorage {
  fileprivate struct Record {
    var data: Data
    var version: Int64
    /// The segment whose frame holds this version.
    var segment: Int
  }

  fileprivate struct Journal: Sendable {
    var records: [String: Record] = [:]
    /// Per segment, how many records' current versions its frames hold.
    var live: [Int: Int] = [:]
    var segment = 0
    var fd: Int32 = -1
    var size = 0
    /// The segments there, oldest first; the last is appended to.
    var segments: [Int] = []
    /// Held while this process has the journal: `flock` on `.lock`.
    var lock: Int32 = -1
  }

  private let folder: String
  private let threadPool: NIOThreadPool
  private let locked = Locked()
  private let group: GroupSync
  /// Past this size appends go to a new segment.
  private let segmentSize: Int

  /// Another process has the journal.
  struct Taken: Error {}

  /// Opens the journal in `directory` (created if missing), unless another process has it
  /// (`Taken`).
  public init(_ directory: URL, threadPool: NIOThreadPool = FileBackend.fileThreads, segmentSize: Int = 4 << 20) throws {
    folder = directory.path
    self.threadPool = threadPool
    self.segmentSize = segmentSize
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let lock = open("\(folder)/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lock >= 0 else { throw FileError("open", "\(folder)/.lock") }
    guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      Glibc.close(lock)
      if code == EWOULDBLOCK { throw Taken() }
      throw FileError("flock", "\(folder)/.lock", code: code)
    }
    // Held, but of a folder removed meanwhile (taken up and settled by another start): not this.
    var held = stat()
    var there = stat()
    guard fstat(lock, &held) == 0, stat("\(folder)/.lock", &there) == 0, held.st_ino == there.st_ino, held.st_dev == there.st_dev else {
      Glibc.close(lock)
      throw Taken()
    }
    locked.journal.withLock { $0.lock = lock }
    group = GroupSync(threadPool: threadPool) { [folder, locked] in
      // A duplicate of the descriptor: a segment closed meanwhile is still synced, never another file.
      let fd = locked.journal.withLock { dup($0.fd) }
      guard fd >= 0 else { throw FileError("dup", folder) }
      defer { Glibc.close(fd) }
      guard fsync(fd) == 0 else { throw FileError("fsync", folder) }
    }
    try replay()
  }

  deinit {
    release()
  }

  /// A journal of this process's own among those in `parent`: a new folder.
  public static func own(in parent: URL) throws -> JournalRecordStorage {
    while true {
      let folder = parent.appendingPathComponent(JournalID.random().rawValue)
      // Taken: a process starting at the same moment took it for an orphan; another name then.
      do { return try JournalRecordStorage(folder) } catch is Taken { continue }
    }
  }

  /// The journals in `parent` whose processes are gone, each now this process's to settle and
  /// `remove()`.
  public static func orphans(in parent: URL) throws -> [JournalRecordStorage] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
    return try names.filter { JournalID($0) != nil }.compactMap { name in
      do {
        return try JournalRecordStorage(parent.appendingPathComponent(name))
      } catch is Taken {
        return nil
      } catch where !FileManager.default.fileExists(atPath: parent.appendingPathComponent(name).path) {
        return nil  // taken up and removed by another start meanwhile
      }
    }
  }

  /// Removes the journal, settled, with its folder.
  public func remove() throws {
    // Renamed away while still held: no process can take it up between.
    let removed = (folder as NSString).deletingLastPathComponent + "/.removed-" + (folder as NSString).lastPathComponent
    guard rename(folder, removed) == 0 else { throw FileError("rename", folder) }
    release()
    try FileManager.default.removeItem(atPath: removed)
  }

  /// What the end of the process does: the journal left as it is, for the next start.
  func release() {
    locked.journal.withLock { journal in
      for fd in [journal.fd, journal.lock] where fd >= 0 { Glibc.close(fd) }
      (journal.fd, journal.lock) = (-1, -1)
    }
  }

  public func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    locked.journal.withLock { $0.records[name].map { ($0.data, $0.version) } }
  }

  public func create(_ name: String, _ data: Data) async throws -> Bool {
    guard try await append(name, data, ifVersion: nil) else { return false }
    try await group.sync()
    return true
  }

  public func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    guard try await append(name, data, ifVersion: version) else { return false }
    try await group.sync()
    return true
  }

  public func delete(_ name: String, at version: Int64) async throws -> Bool {
    guard try await append(name, nil, ifVersion: version) else { return false }
    try await group.sync()
    return true
  }

  public func names(after name: String?, limit: Int) async throws -> [String] {
    let names = locked.journal.withLock { Array($0.records.keys) }
    return Array(names.filter { name == nil || $0 > name! }.sorted().prefix(limit))
  }

  /// Appends a change if the record is at `ifVersion` (`nil`: absent), on the file threads; the
  /// frame is written, not synced.
  private func append(_ name: String, _ data: Data?, ifVersion expected: Int64?) async throws -> Bool {
    precondition(!name.isEmpty, "a record needs a name")
    return try await threadPool.runIfActive { [self] in
      try locked.journal.withLock { journal in
        guard journal.records[name]?.version == expected else { return false }
        if journal.size >= segmentSize { try startSegment(&journal) }
        let version = (expected ?? 0) + 1
        let frame = Self.frame(name, data, version: version)
        do {
          try DurableFile.writeAll(frame, to: journal.fd, path: path(journal.segment))
        } catch {
          // No frame half written before the next: cut back, or go on in a new segment.
          if ftruncate(journal.fd, off_t(journal.size)) != 0 { try? startSegment(&journal) }
          throw error
        }
        journal.size += frame.count
        if let old = journal.records[name] { forget(old.segment, in: &journal) }
        if let data {
          journal.records[name] = Record(data: data, version: version, segment: journal.segment)
          journal.live[journal.segment, default: 0] += 1
        } else {
          journal.records[name] = nil
        }
        return true
      }
    }
  }

  /// One record fewer in `segment`.
  private func forget(_ segment: Int, in journal: inout Journal) {
    journal.live[segment, default: 1] -= 1
    removeSettledSegments(&journal)
  }

  /// Removes segments from the oldest up while none of their records is still there, never the
  /// one appended to.
  private func removeSettledSegments(_ journal: inout Journal) {
    while let oldest = journal.segments.first, oldest != journal.segment, journal.live[oldest, default: 0] <= 0 {
      unlink(path(oldest))
      journal.live[oldest] = nil
      journal.segments.removeFirst()
    }
  }

  /// Appends go to a new segment from now on; the last one is synced first, for the writes still
  /// waiting for a sync of it. The records still there in the oldest segment are written again
  /// into the new one, so that a record left long does not keep every segment after it.
  private func startSegment(_ journal: inout Journal) throws {
    let next = journal.segment + 1
    let fd = open(path(next), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileError("create", path(next)) }
    do {
      try DurableFile.syncFolder(folder)
      if journal.fd >= 0, fsync(journal.fd) != 0 { throw FileError("fsync", path(journal.segment)) }
    } catch {
      Glibc.close(fd)
      unlink(path(next))
      throw error
    }
    if journal.fd >= 0 { Glibc.close(journal.fd) }
    (journal.segment, journal.fd, journal.size) = (next, fd, 0)
    journal.segments.append(next)
    if let oldest = journal.segments.first, oldest != next, journal.live[oldest, default: 0] > 0 {
      let carried = journal.records.filter { $0.value.segment == oldest }
      var frames = Data()
      for (name, record) in carried { frames.append(Self.frame(name, record.data, version: record.version)) }
      // Carried once durable in the new segment; otherwise left where they are.
      if (try? DurableFile.writeAll(frames, to: fd, path: path(next))) != nil, fsync(fd) == 0 {
        for (name, _) in carried { journal.records[name]?.segment = next }
        journal.live[oldest] = 0
        journal.live[next, default: 0] += carried.count
        journal.size = frames.count
      } else {
        _ = ftruncate(fd, 0)
      }
    }
    removeSettledSegments(&journal)
  }

  /// Reads the segments in order into memory, removes those with nothing left in them, and
  /// starts a new one.
  private func replay() throws {
    let segments = try FileManager.default.contentsOfDirectory(atPath: folder).compactMap { name -> Int? in
      name.hasPrefix("journal-") ? Int(name.dropFirst(8)) : nil
    }.sorted()
    try locked.journal.withLock { journal in
      for segment in segments {
        let bytes = try DurableFile.read(path(segment)) ?? Data()
        var offset = bytes.startIndex
        while let (name, data, version, next) = Self.parse(bytes, at: offset) {
          if let old = journal.records[name] { journal.live[old.segment, default: 1] -= 1 }
          if let data {
            journal.records[name] = Record(data: data, version: version, segment: segment)
            journal.live[segment, default: 0] += 1
          } else {
            journal.records[name] = nil
          }
          offset = next
        }
      }
      journal.segments = segments
      journal.segment = segments.last ?? 0
      try startSegment(&journal)
    }
  }

  private func path(_ segment: Int) -> String {
    "\(folder)/journal-\(segment)"
  }

  // A frame: kind (1: a version, 0: deleted), version (8 bytes), the name's and the data's
  // lengths (4 bytes each), the name, the data, then a checksum of all that (8 bytes); numbers
  // little-endian.

  private static func frame(_ name: String, _ data: Data?, version: Int64) -> Data {
    let name = Data(name.utf8)
    var frame = Data([data == nil ? 0 : 1])
    frame.append(littleEndian: UInt64(bitPattern: version))
    frame.append(littleEndian: UInt32(name.count))
    frame.append(littleEndian: UInt32(data?.count ?? 0))
    frame.append(name)
    if let data { frame.append(data) }
    frame.append(littleEndian: checksum(frame))
    return frame
  }

  /// The frame at `offset`, and where the next starts; `nil` at the end, or where a frame is cut
  /// short or does not match its checksum.
  private static func parse(_ bytes: Data, at offset: Int) -> (name: String, data: Data?, version: Int64, next: Int)? {
    let header = 1 + 8 + 4 + 4
    guard bytes.endIndex - offset >= header + 8 else { return nil }
    let kind = bytes[offset]
    let version = Int64(bitPattern: bytes.littleEndian(UInt64.self, at: offset + 1))
    let nameCount = Int(bytes.littleEndian(UInt32.self, at: offset + 9))
    let dataCount = Int(bytes.littleEndian(UInt32.self, at: offset + 13))
    let end = offset + header + nameCount + dataCount
    guard kind <= 1, end + 8 <= bytes.endIndex, checksum(bytes[offset..<end]) == bytes.littleEndian(UInt64.self, at: end),
      let name = String(data: bytes[(offset + header)..<(offset + header + nameCount)], encoding: .utf8)
    else { return nil }
    let data = kind == 1 ? Data(bytes[(offset + header + nameCount)..<end]) : nil
    return (name, data, version, end + 8)
  }

  /// FNV-1a, 64 bits: enough to tell a frame a crash cut or left unwritten.
  private static func checksum(_ bytes: Data) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}

/// The journal's state, shared with its syncs.
private final class Locked: Sendable {
  let journal = Mutex(JournalRecordStorage.Journal())
}

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
