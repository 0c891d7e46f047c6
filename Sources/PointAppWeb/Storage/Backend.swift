import Crypto
import Foundation
import Synchronization

/// Every kind of record, in one place: its folder in the data folder, its table in PostgreSQL, and
/// how many of its records, decoded, a process keeps in memory (a generation of `Records`').
public struct RecordKind: Hashable, Sendable {
  public let folder: String
  public let table: String
  public let kept: Int

  init(_ folder: String, table: String? = nil, kept: Int = 500) {
    self.folder = folder
    self.table = table ?? folder
    self.kept = kept
  }

  /// Read by every request: enough for a busy instance's browsers.
  public static let sessions = RecordKind("sessions", kept: 4000)
  public static let accounts = RecordKind("accounts")
  public static let catalog = RecordKind("catalog")
  public static let operators = RecordKind("operators")
  public static let audit = RecordKind("audit")
  public static let responses = RecordKind("responses")
  public static let giftCodes = RecordKind("gift-codes", table: "gift_codes")
  public static let exchangeQueue = RecordKind("exchanges-pending", table: "exchange_pending")
  public static let adjustments = RecordKind("adjustments")
  public static let loginLimits = RecordKind("login-limits", table: "login_limits")
  /// Users' states by user id (`UserStates`): a page view reads its user's.
  public static let users = RecordKind("users")
  /// Users' archives, `<user>~<name>`.
  public static let archive = RecordKind("user-archive", table: "user_archive")
  /// Surveys' quotas (`Quotas`).
  public static let quotas = RecordKind("quotas")
  /// The server's own settings: `session-secret` (`Sessions.secret(in:)`).
  public static let settings = RecordKind("settings")

  /// Messages waiting to be delivered (`MailQueue`), and what became of each one delivered or refused.
  public static let mailQueue = RecordKind("mail-queue", table: "mail_queue")
  public static let mailLog = RecordKind("mail-log", table: "mail_log")
  /// Passes over the members for invitations and expiry warnings (`NoticeRuns`).
  public static let noticeRuns = RecordKind("notice-runs", table: "notice_runs")

  /// On files only, beside `all`: each process's counts of the responses it recorded, a record per
  /// survey, `<survey>~<process>` (`ResponseStore`, `DeferredWrites`).
  public static let countShards = RecordKind("count-shards")

  /// Every kind a backend holds.
  public static let all: [RecordKind] = [
    sessions, accounts, catalog, operators, audit, responses, giftCodes, exchangeQueue, adjustments, loginLimits, users, archive, quotas, settings,
    mailQueue, mailLog, noticeRuns,
  ]
}

/// Where every store keeps its records: tables of records (`RecordStorage`), and one thing more,
/// `holding`: work run while holding a key, every write it makes through the backend's tables
/// committing together. Memory (tests), files (the data folder) and PostgreSQL implement it; one
/// contract suite (`BackendContractTests`) and the crash test's kills prove it.
public protocol RecordBackend: Sendable {
  /// The records of one kind (one of `RecordKind.all`): the same table each time it is asked for.
  func table(_ kind: RecordKind) -> any RecordStorage

  /// Runs `body` holding `key`: holders of one key take turns, in every process and instance
  /// that shares the backend. Every write `body` makes through the backend's tables commits when
  /// it returns, all of them together, or none does: when it throws, and whatever crash comes
  /// between. Inside, reads see its writes, and a record it wrote or read for update
  /// (`readForUpdate`) is held against other writers until the end. A holding inside a holding
  /// joins it: its key is held, and its writes commit, with the outer one.
  func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result
}

/// Another process changed, between a holding's first touch of a record and its commit, a record
/// the holding changed (files shared by several processes only: within a process, and on
/// PostgreSQL, the other writer waits instead). Nothing of the holding was written.
public struct RecordConflict: Error, CustomStringConvertible {
  public let record: String
  public var description: String { "\(record) was changed by another process meanwhile; nothing was written" }
}

/// A table of a memory or file backend: its records as stored, and a lock per record that its
/// own writes take, so that a holding that touched a record keeps other writers out until it ends.
protocol HeldTable: RecordStorage, AnyObject {
  /// The table's name in its backend (its folder).
  var place: String { get }
  /// The record as stored, outside any holding.
  func stored(_ name: String) async throws -> (data: Data, version: Int64)?
  /// Holds the record against other writers, in this process and, on files, in every process
  /// sharing the folder.
  func hold(_ name: String) async throws
  func letGo(_ name: String) async
}

/// The writes of one holding on memory or files, kept until they commit together, with the
/// records they hold. Every table of the backend routes its calls here while the holding runs
/// (`current`, inherited by the tasks `body` starts).
final class PendingWrites: Sendable {
  @TaskLocal static var current: PendingWrites?

  struct Place: Hashable, Sendable {
    let table: String
    let name: String
  }

  /// A record touched: as stored when first touched (`base`) and as this holding leaves it.
  struct Touched: Sendable {
    let table: any HeldTable
    let base: (data: Data, version: Int64)?
    var now: (data: Data, version: Int64)?
  }

  /// What a commit writes: the record at `version` (`nil`: deleted), where it was at `base`.
  struct Change: Sendable {
    let table: any HeldTable
    let name: String
    let base: Int64?
    let now: (data: Data, version: Int64)?
  }

  let backend: ObjectIdentifier
  private let touched = Mutex<(records: [Place: Touched], order: [Place])>(([:], []))
  private let releases = Mutex<[@Sendable () async -> Void]>([])
  /// The keys this holding holds.
  private let keys = Mutex<Set<String>>([])
  /// First touches one at a time per record: tasks of one holding may touch one at once.
  private let touching = KeyedMutex<Place>()

  init(backend: ObjectIdentifier) {
    self.backend = backend
  }

  /// Whether `table` takes part in this holding (a table of its backend).
  static func of(_ backend: ObjectIdentifier?) -> PendingWrites? {
    guard let backend, let current, current.backend == backend else { return nil }
    return current
  }

  /// Whether `key` is new to this holding (noted held from now): a holding of a key it holds
  /// already joins without taking its lock again.
  func takes(_ key: String) -> Bool {
    keys.withLock { $0.insert(key).inserted }
  }

  /// Runs `release` when the holding ends, committed or not.
  func onEnd(_ release: @escaping @Sendable () async -> Void) {
    releases.withLock { $0.append(release) }
  }

  func end() async {
    for release in releases.withLock({ $0.reversed() }) { await release() }
    releases.withLock { $0 = [] }
  }

  /// The record as this holding sees it, without holding it.
  func read(_ table: any HeldTable, _ name: String) async throws -> (data: Data, version: Int64)? {
    if let touched = touched.withLock({ $0.records[Place(table: table.place, name: name)] }) { return touched.now }
    return try await table.stored(name)
  }

  /// The record as this holding sees it, held from now to the end.
  func touch(_ table: any HeldTable, _ name: String) async throws -> (data: Data, version: Int64)? {
    let place = Place(table: table.place, name: name)
    return try await touching.withLock(place) {
      if let touched = touched.withLock({ $0.records[place] }) { return touched.now }
      try await table.hold(name)
      onEnd { await table.letGo(name) }
      let stored = try await table.stored(name)
      touched.withLock {
        $0.records[place] = Touched(table: table, base: stored, now: stored)
        $0.order.append(place)
      }
      return stored
    }
  }

  /// Writes `data` (`nil`: deletes) if the record is at `version` (`nil`: absent) as this holding
  /// sees it.
  func write(_ table: any HeldTable, _ name: String, _ data: Data?, ifAt version: Int64?) async throws -> Bool {
    let current = try await touch(table, name)
    guard current?.version == version else { return false }
    let place = Place(table: table.place, name: name)
    touched.withLock { touched in
      let base = touched.records[place]?.base?.version ?? 0
      touched.records[place]?.now = data.map { ($0, max(base, version ?? 0) + 1) }
    }
    return true
  }

  /// The records this holding changed, in the order it first touched them.
  var changes: [Change] {
    touched.withLock { touched in
      touched.order.compactMap { place in
        guard let record = touched.records[place] else { return nil }
        switch (record.base, record.now) {
        case (nil, nil): return nil
        case let (base?, now?) where base.version == now.version: return nil
        default: return Change(table: record.table, name: place.name, base: record.base?.version, now: record.now)
        }
      }
    }
  }
}

/// The lock of a holding's key, or a record's, as a 64-bit number: PostgreSQL's advisory locks,
/// the byte of `NamedLocks`.
enum HoldingKey {
  static func number(_ key: String) -> Int64 {
    SHA256.hash(data: Data(key.utf8)).prefix(8).reduce(0 as Int64) { $0 << 8 | Int64($1) }
  }
}

/// Records in memory (tests): a holding commits its writes under one lock over every table, so
/// that no reader ever sees some of them and not the others.
public final class MemoryBackend: RecordBackend {
  private let records = MemoryRecords()
  /// Every kind's, made at start.
  private let tables: [String: InMemoryRecordStorage]
  private let holds = KeyedMutex<String>()
  private let token = Token()
  private final class Token: Sendable {}

  public init() {
    let (records, backend) = (records, ObjectIdentifier(token))
    tables = Dictionary(uniqueKeysWithValues: RecordKind.all.map { ($0.folder, InMemoryRecordStorage(records, place: $0.folder, backend: backend)) })
  }

  public func table(_ kind: RecordKind) -> any RecordStorage {
    guard let table = tables[kind.folder] else { preconditionFailure("\(kind.folder) is not among RecordKind.all") }
    return table
  }

  public func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    if let outer = PendingWrites.of(ObjectIdentifier(token)) {
      if outer.takes(key) {
        await holds.acquire(key)
        outer.onEnd { [holds] in await holds.release(key) }
      }
      return try await body()
    }
    let pending = PendingWrites(backend: ObjectIdentifier(token))
    _ = pending.takes(key)
    await holds.acquire(key)
    pending.onEnd { [holds] in await holds.release(key) }
    do {
      let result = try await PendingWrites.$current.withValue(pending) { try await body() }
      try records.commit(pending.changes)
      await pending.end()
      return result
    } catch {
      await pending.end()
      throw error
    }
  }
}

/// The records of every table of a memory backend (or of one table alone), under one lock.
final class MemoryRecords: Sendable {
  let tables = Mutex<[String: [String: (data: Data, version: Int64)]]>([:])

  /// Applies a holding's changes at once; none if one of its records moved meanwhile (it cannot:
  /// the holding held them).
  func commit(_ changes: [PendingWrites.Change]) throws {
    try tables.withLock { tables in
      for change in changes where tables[change.table.place]?[change.name]?.version != change.base {
        throw RecordConflict(record: "\(change.table.place)/\(change.name)")
      }
      for change in changes { tables[change.table.place, default: [:]][change.name] = change.now }
    }
  }
}
