import Foundation
import Synchronization

/// A name that can name a record in every storage: a file name, a table's key. Ids come from
/// requests only once they are checked (`RandomID` is 32 hex digits), so a name never leaves its
/// folder.
public protocol RecordKey: Hashable, Sendable {
  var recordName: String { get }
  init?(recordName: String)
}

/// A record's name as its kind's prefix and what tells it from the others of that kind
/// (`draft-<survey>`, `#counts~<survey>`, `r-<request>`): the one key for records looked up by
/// name.
public struct RecordName: RecordKey {
  public let recordName: String
  public init(_ prefix: String, _ rest: String = "") { recordName = prefix + rest }
  public init?(recordName: String) { self.recordName = recordName }

  /// What follows `prefix`; `nil` for a name of another kind.
  public func after(_ prefix: String) -> String? {
    recordName.hasPrefix(prefix) ? String(recordName.dropFirst(prefix.count)) : nil
  }
}

extension RandomID: RecordKey {
  public var recordName: String { rawValue }
  public init?(recordName: String) { self.init(recordName) }
}

/// Where one kind of record lives, as bytes by name, each with a version that moves on with every
/// write: the one storage layer under sessions, accounts and the stores that come after them.
/// Three implementations (memory, a folder of files, a PostgreSQL table) pass one contract suite
/// (`RecordStoreContractTests`).
///
/// A write names the version it read (compare-and-swap): a write that lost a race is refused,
/// never applied over a change it did not see.
public protocol RecordStorage: Sendable {
  /// The record's bytes and version; `nil` when there is none.
  func read(_ name: String) async throws -> (data: Data, version: Int64)?
  /// As `read`, for a write that follows: where the read runs in a transaction (PostgreSQL,
  /// inside a user's update), the record is held against other writers until it ends, so that a
  /// `replace` at the version read cannot lose, and writers of one record queue instead of
  /// reading, losing and trying again. Elsewhere, `read`.
  func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)?
  /// Creates the record unless one exists (`false` then), at version 1: of simultaneous
  /// creators, processes and instances sharing the storage included, exactly one wins.
  func create(_ name: String, _ data: Data) async throws -> Bool
  /// Replaces the record if it is still at `version` (`false` otherwise: changed or deleted).
  func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool
  /// Deletes the record if it is still at `version` (`false` otherwise).
  func delete(_ name: String, at version: Int64) async throws -> Bool
  /// Up to `limit` names in ascending order, after `name` (from the first when `nil`).
  func names(after name: String?, limit: Int) async throws -> [String]
  /// Up to `limit` records whose names start with `prefix`, after `name` (from the first when
  /// `nil`), in ascending order of name, read at once: a long list (a survey's responses) goes by
  /// in pages at the cost of a few reads each.
  func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)]
}

extension RecordStorage {
  /// Every name, in ascending order: a page at a time.
  func allNames() async throws -> [String] {
    var all: [String] = []
    while case let page = try await names(after: all.last, limit: 1_000), !page.isEmpty { all += page }
    return all
  }

  public func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await read(name)
  }

  /// Names, then each record read: for the stores in memory.
  public func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    var found: [(name: String, data: Data)] = []
    var cursor = max(name ?? "", prefix)
    while found.count < limit {
      let names = try await names(after: cursor, limit: limit - found.count)
      for next in names {
        guard next.hasPrefix(prefix) else { return found }
        if let record = try await read(next) { found.append((next, record.data)) }
      }
      guard let last = names.last else { break }
      cursor = last
    }
    return found
  }
}

/// A record as read, with the version a write must name.
public struct Versioned<Record: Sendable>: Sendable {
  public var record: Record
  public var version: Int64
}

/// Typed records over a `RecordStorage`: keys and values in, JSON bytes out. Decoded records are
/// kept while their bytes are the same, so that a record read on every request (a session) is
/// decoded once.
public struct Records<Key: RecordKey, Record: Codable & Sendable>: Sendable {
  public let storage: any RecordStorage
  private let decoded: DecodedRecords<Record>

  /// `kept`: how many decoded records a generation of the cache holds (at most twice as many are
  /// kept).
  public init(_ storage: any RecordStorage, kept: Int = 500) {
    self.storage = storage
    decoded = DecodedRecords(generation: kept)
  }

  public func read(_ key: Key) async throws -> Versioned<Record>? {
    try decode(try await storage.read(key.recordName), of: key)
  }

  private func decode(_ read: (data: Data, version: Int64)?, of key: Key) throws -> Versioned<Record>? {
    try read.map { Versioned(record: try decoded.decode($0.data, as: key.recordName), version: $0.version) }
  }

  /// Creates `record` as `key`'s unless `key` has one (`false` then).
  public func create(_ record: Record, as key: Key) async throws -> Bool {
    let data = try SavedJSON.encode(record)
    guard try await storage.create(key.recordName, data) else { return false }
    decoded.wrote(record, as: data, name: key.recordName)
    return true
  }

  /// Replaces `key`'s record if it is still at `version` (`false`: it changed since it was read).
  public func replace(_ key: Key, with record: Record, at version: Int64) async throws -> Bool {
    let data = try SavedJSON.encode(record)
    guard try await storage.replace(key.recordName, data, at: version) else { return false }
    decoded.wrote(record, as: data, name: key.recordName)
    return true
  }

  public func delete(_ key: Key, at version: Int64) async throws -> Bool {
    try await storage.delete(key.recordName, at: version)
  }

  /// Reads `key`'s record (`nil`: none), and writes what `change` makes of it (`nil`: nothing),
  /// again from a fresh read whenever another write came between: a change is never lost, and
  /// never applied to a record it did not see. `change` may throw to write nothing. In a
  /// transaction, the read holds the record until it ends (`readForUpdate`), so nothing comes
  /// between.
  @discardableResult
  public func modify<Result: Sendable>(
    _ key: Key, _ change: (Record?) throws -> (record: Record?, result: Result)
  ) async throws -> Result {
    while true {
      let current = try decode(try await storage.readForUpdate(key.recordName), of: key)
      let (record, result) = try change(current?.record)
      guard let record else { return result }
      let written =
        if let current { try await replace(key, with: record, at: current.version) } else { try await create(record, as: key) }
      if written { return result }
    }
  }

  /// Up to `limit` records whose names start with `prefix`, after `key`, decoded, in order of
  /// name; not kept in memory (a long list read once would only push out what is in use).
  public func records(prefixed prefix: String, after key: Key?, limit: Int) async throws -> [Record] {
    try await storage.records(prefixed: prefix, after: key?.recordName, limit: limit).map { try SavedJSON.decode(Record.self, from: $0.data) }
  }

  /// Every record whose name starts with `prefix`, decoded, in order of name: a page at a time.
  public func all(prefixed prefix: String) async throws -> [Record] {
    var (found, after): ([Record], String?) = ([], nil)
    while case let page = try await storage.records(prefixed: prefix, after: after, limit: 500), let last = page.last {
      found += try page.map { try SavedJSON.decode(Record.self, from: $0.data) }
      after = last.name
    }
    return found
  }

  /// Up to `limit` keys in ascending order of their names, after `key` (from the first: `nil`).
  public func keys(after key: Key?, limit: Int) async throws -> [Key] {
    try await storage.names(after: key?.recordName, limit: limit).compactMap(Key.init(recordName:))
  }
}

/// Decoded records by name, with the bytes they were decoded from.
private final class DecodedRecords<Record: Sendable>: Sendable where Record: Decodable {
  private let recent: Mutex<RecentlyUsed<String, (data: Data, record: Record)>>

  init(generation: Int) {
    recent = Mutex(RecentlyUsed(generation: generation))
  }

  func decode(_ data: Data, as name: String) throws -> Record {
    if let kept = recent.withLock({ $0[name] }), kept.data == data { return kept.record }
    let record = try SavedJSON.decode(Record.self, from: data)
    recent.withLock { $0[name] = (data, record) }
    return record
  }

  /// Keeps a record just written as `data` for the next read of those bytes, when it reads back
  /// as it was written (`SavedExactly`; checked in debug builds, which the tests run). A write
  /// that is then rolled back leaves other bytes stored, which are decoded.
  func wrote(_ record: Record, as data: Data, name: String) {
    guard let exact = record as? any SavedExactly else { return }
    assert(Self.readsBack(exact, from: data), "\(Record.self) does not read back as written")
    recent.withLock { $0[name] = (data, record) }
  }

  private static func readsBack<Exact: SavedExactly>(_ record: Exact, from data: Data) -> Bool {
    (try? SavedJSON.decode(Exact.self, from: data)) == record
  }
}

/// A record whose JSON decodes to a value equal to the one encoded (no dates, whose fractions of
/// a second the encoding drops): `Records` keeps one it writes as the next read of its bytes
/// would decode it. A survey's counts, rewritten by every answer and read by the next, are then
/// decoded again only when other bytes are read: another instance's, or the stored ones after a
/// write was rolled back or the kept record was let go.
protocol SavedExactly: Codable, Equatable {}

/// Records in memory, for tests: a table of its own, or one of a `MemoryBackend`'s, whose
/// holdings its calls then take part in.
public final class InMemoryRecordStorage: RecordStorage, HeldTable {
  private let records: MemoryRecords
  let place: String
  private let backend: ObjectIdentifier?
  private let writers = KeyedMutex<String>()

  public init() {
    records = MemoryRecords()
    place = ""
    backend = nil
  }

  init(_ records: MemoryRecords, place: String, backend: ObjectIdentifier) {
    self.records = records
    self.place = place
    self.backend = backend
  }

  func stored(_ name: String) async throws -> (data: Data, version: Int64)? {
    records.tables.withLock { $0[place]?[name] }
  }

  func hold(_ name: String) async throws { await writers.acquire(name) }
  func letGo(_ name: String) async { await writers.release(name) }

  public func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    if let pending = PendingWrites.of(backend) { return try await pending.read(self, name) }
    return try await stored(name)
  }

  public func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? {
    if let pending = PendingWrites.of(backend) { return try await pending.touch(self, name) }
    return try await stored(name)
  }

  public func create(_ name: String, _ data: Data) async throws -> Bool {
    try await write(name, data, ifAt: nil)
  }

  public func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    try await write(name, data, ifAt: version)
  }

  public func delete(_ name: String, at version: Int64) async throws -> Bool {
    try await write(name, nil, ifAt: version)
  }

  /// Outside a holding, at once, once no holding holds the record.
  private func write(_ name: String, _ data: Data?, ifAt version: Int64?) async throws -> Bool {
    if let pending = PendingWrites.of(backend) { return try await pending.write(self, name, data, ifAt: version) }
    let (records, place) = (records, place)
    return try await writers.withLock(name) {
      records.tables.withLock { tables in
        guard tables[place]?[name]?.version == version else { return false }
        tables[place, default: [:]][name] = data.map { ($0, (version ?? 0) + 1) }
        return true
      }
    }
  }

  public func names(after name: String?, limit: Int) async throws -> [String] {
    let names = records.tables.withLock { Array(($0[place] ?? [:]).keys) }
    return Array(names.filter { name == nil || $0 > name! }.sorted().prefix(limit))
  }
}
