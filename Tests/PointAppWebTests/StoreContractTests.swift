import Foundation
@testable import PointAppWeb
import Testing

/// Where a store keeps what it keeps: every store guarantee is tested on each.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
  /// The record layer is tested on `cachedPostgres` too:
  /// PostgreSQL's sessions and accounts as an instance reads them, through its change feed's
  /// caches (`CachedRecordStorage`), each call as a request whose browser's writes were all heard
  /// (`ChangeFeed.servesCached`), so that whatever may be served from memory is.
  case memory, files, postgres, cachedPostgres
  var testDescription: String { rawValue }

  /// The kinds every store is tested on; without PostgreSQL's server its cases are reported
  /// skipped (`TestDatabase.database()`).
  static let tested = [StoreKind.memory, .files, .postgres]
  /// The record layer's: PostgreSQL through an instance's caches too.
  static let testedRecords = tested + [.cachedPostgres]

  /// A record storage of this kind; on PostgreSQL, the shared test database's `table`, whose
  /// rows other tests write too (each test names its own records).
  func records(table: String = "sessions") async throws -> any RecordStorage {
    switch self {
    case .memory:
      return InMemoryRecordStorage()
    case .files:
      return try FileRecordStorage(scratch("records"))
    case .postgres:
      return PostgresRecordStorage(try await TestDatabase.database(), table: table)
    case .cachedPostgres:
      let feed = try await SharedFeed.live.value
      let cache = table == "sessions" ? feed.sessions : table == "accounts" ? feed.accounts : nil
      guard let cache else { preconditionFailure("only sessions and accounts are read through an instance's cache") }
      let base = PostgresRecordStorage(try await TestDatabase.database(), table: table)
      return ServedCached(base: CachedRecordStorage(base: base, cache: cache))
    }
  }

  func stores() async throws -> (sessions: SessionRecords, accounts: AccountRecords) {
    (SessionRecords(try await records(table: "sessions")), AccountRecords(try await records(table: "accounts")))
  }
}

/// A change feed on the shared test database, listening for as long as the tests run.
enum SharedFeed {
  static let live = Task {
    let feed = ChangeFeed(try await TestDatabase.database(), logger: TestDatabase.logger)
    Task { try await feed.run() }
    for _ in 0..<200 where !feed.isLive { try await Task.sleep(for: .milliseconds(50)) }
    guard feed.isLive else { throw Failure() }
    return feed
  }
}

/// Every call as a request that may be served from the instance's caches makes it; each read
/// twice, the second from the cache where the first was kept, so that the contract is checked on
/// what the cache serves.
struct ServedCached: RecordStorage {
  let base: CachedRecordStorage

  private func served<Result>(_ body: () async throws -> Result) async throws -> Result {
    try await ChangeFeed.$servesCached.withValue(true) { try await body() }
  }

  func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await served {
      _ = try await base.read(name)
      return try await base.read(name)
    }
  }
  func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? { try await served { try await base.readForUpdate(name) } }
  func create(_ name: String, _ data: Data) async throws -> Bool { try await served { try await base.create(name, data) } }
  func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    try await served { try await base.replace(name, data, at: version) }
  }
  func delete(_ name: String, at version: Int64) async throws -> Bool { try await served { try await base.delete(name, at: version) } }
  func names(after name: String?, limit: Int) async throws -> [String] { try await served { try await base.names(after: name, limit: limit) } }
  func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    try await served { try await base.records(prefixed: prefix, after: name, limit: limit) }
  }
}

/// What the one record layer guarantees, in memory, in files and in PostgreSQL alike: sessions and
/// accounts are kept in it, and the stores that come after them.
struct RecordStoreContractTests {
  typealias Kind = StoreKind

  /// Names of this test's own: other tests' records share the PostgreSQL table.
  private static func names(_ count: Int) -> [String] {
    let prefix = "t-\(UUID().uuidString.lowercased())-"
    return (0..<count).map { prefix + String(format: "%02d", $0) }
  }

  @Test(arguments: Kind.testedRecords)
  func aRecordIsCreatedOnceAtVersionOne(kind: Kind) async throws {
    let storage = try await kind.records()
    let name = Self.names(1)[0]
    #expect(try await storage.read(name) == nil)
    #expect(try await storage.create(name, Data("first".utf8)))
    #expect(try await storage.create(name, Data("second".utf8)) == false)
    let read = try #require(try await storage.read(name))
    #expect(read.data == Data("first".utf8) && read.version == 1)
  }

  @Test(arguments: Kind.testedRecords)
  func aWriteNamesTheVersionItReadAndLosesToOneThatCameBetween(kind: Kind) async throws {
    let storage = try await kind.records()
    let name = Self.names(1)[0]
    #expect(try await storage.replace(name, Data("none".utf8), at: 1) == false, "nothing to replace")
    #expect(try await storage.create(name, Data("v1".utf8)))
    #expect(try await storage.replace(name, Data("v2".utf8), at: 1))
    #expect(try await storage.replace(name, Data("late".utf8), at: 1) == false, "written over a version it did not read")
    let read = try #require(try await storage.read(name))
    #expect(read.data == Data("v2".utf8) && read.version == 2)
  }

  /// A long list by prefix, a page at a time, in order of name; nothing of another prefix.
  @Test(arguments: Kind.testedRecords)
  func recordsByPrefixComeInPagesInOrderOfName(kind: Kind) async throws {
    let storage = try await kind.records()
    let prefix = "t-\(UUID().uuidString.lowercased())~"
    for name in ["c", "a", "b", "d"] { #expect(try await storage.create(prefix + name, Data(name.utf8))) }
    #expect(try await storage.create(prefix.dropLast() + "-other", Data("x".utf8)))
    // Settled, so that a folder's listing is kept for the next page (and must not hide a record
    // written between the two).
    try await Task.sleep(for: .milliseconds(60))
    let first = try await storage.records(prefixed: prefix, after: nil, limit: 3)
    #expect(first.map(\.name) == ["a", "b", "c"].map { prefix + $0 })
    #expect(first.map { String(decoding: $0.data, as: UTF8.self) } == ["a", "b", "c"], "the records' bytes, without their versions")
    _ = try await storage.create(prefix + "bb", Data("bb".utf8))  // written between two pages
    let next = try await storage.records(prefixed: prefix, after: prefix + "b", limit: 3)
    #expect(next.map(\.name) == ["bb", "c", "d"].map { prefix + $0 })
    #expect(try await storage.records(prefixed: prefix, after: prefix + "d", limit: 3).isEmpty)
  }

  @Test(arguments: Kind.testedRecords)
  func aDeleteNamesTheVersionItRead(kind: Kind) async throws {
    let storage = try await kind.records()
    let name = Self.names(1)[0]
    #expect(try await storage.create(name, Data("v1".utf8)))
    #expect(try await storage.replace(name, Data("v2".utf8), at: 1))
    #expect(try await storage.delete(name, at: 1) == false, "changed since")
    #expect(try await storage.read(name)?.data == Data("v2".utf8))
    #expect(try await storage.delete(name, at: 2))
    #expect(try await storage.read(name) == nil)
    #expect(try await storage.delete(name, at: 2) == false)
    #expect(try await storage.create(name, Data("again".utf8)))
  }

  @Test(arguments: Kind.testedRecords)
  func ofSimultaneousCreatorsOneWins(kind: Kind) async throws {
    let storage = try await kind.records()
    let name = Self.names(1)[0]
    let won = try await withThrowingTaskGroup(of: Int?.self) { group in
      for number in 0..<20 {
        group.addTask { try await storage.create(name, Data("\(number)".utf8)) ? number : nil }
      }
      return try await group.reduce(into: [Int]()) { if let number = $1 { $0.append(number) } }
    }
    #expect(won.count == 1)
    #expect(try await storage.read(name)?.data == Data("\(won[0])".utf8))
  }

  /// Twenty changes at once, each from a fresh read: none is lost.
  @Test(arguments: Kind.testedRecords)
  func simultaneousModificationsAllLand(kind: Kind) async throws {
    let records = Records<SessionID, [Int]>(try await kind.records())
    let key = SessionID.random()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 0..<20 {
        group.addTask { try await records.modify(key) { (($0 ?? []) + [number], ()) } }
      }
      try await group.waitForAll()
    }
    let read = try #require(try await records.read(key))
    #expect(read.record.sorted() == Array(0..<20))
    #expect(read.version == 20)
  }

  @Test(arguments: Kind.testedRecords)
  func namesAreListedInOrderFromACursor(kind: Kind) async throws {
    let storage = try await kind.records()
    let names = Self.names(5)
    for name in names.shuffled() { #expect(try await storage.create(name, Data(name.utf8))) }
    let prefix = String(names[0].dropLast(2))
    #expect(try await storage.names(after: prefix, limit: 3) == Array(names[0..<3]))
    #expect(try await storage.names(after: names[2], limit: 2) == Array(names[3..<5]))
  }

  @Test(arguments: Kind.testedRecords)
  func aSessionRecordReadsBackAsWritten(kind: Kind) async throws {
    let store = try await kind.stores().sessions
    let id = SessionID.random()
    #expect(try await store.read(id) == nil)
    let record = SessionRecord(user: .random(), account: AccountID(email: "a@example.jp"), epoch: 3, lastSeen: noon, passwordConfirmedAt: noon)
    #expect(try await store.create(record, as: id))
    #expect(try await store.read(id)?.record == record)
    let ended = SessionRecord(user: nil, lastSeen: noon + 60)
    try await store.modify(id) { _ in (ended, ()) }
    #expect(try await store.read(id)?.record == ended)
  }

  @Test(arguments: Kind.testedRecords)
  func oneAddressMakesOneAccountHoweverManyRegisterAtOnce(kind: Kind) async throws {
    let store = try await kind.stores().accounts
    let email = "same-\(UUID().uuidString.lowercased())@example.jp"
    let accounts = (0..<20).map { number in
      Account(email: email, passwordHash: "hash-\(number)", user: .random(), created: noon)
    }
    let made = try await withThrowingTaskGroup(of: Account?.self) { group in
      for account in accounts {
        group.addTask { try await store.create(account, as: account.id) ? account : nil }
      }
      return try await group.reduce(into: [Account]()) { if let account = $1 { $0.append(account) } }
    }
    #expect(made.count == 1)
    #expect(try await store.read(AccountID(email: email))?.record == made.first)
  }

  /// A password changed on one device while another logs out everywhere: both changes land.
  @Test(arguments: Kind.testedRecords)
  func twoAccountChangesAtOnceNeverLoseOne(kind: Kind) async throws {
    let store = try await kind.stores().accounts
    let account = Account(email: "both-\(UUID().uuidString.lowercased())@example.jp", passwordHash: "h0", user: .random(), created: noon)
    #expect(try await store.create(account, as: account.id))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 1...10 {
        group.addTask {
          try await store.modify(account.id) { account in
            var changed = try #require(account)
            changed.epoch += 1
            if number == 7 { changed.passwordHash = "h7" }
            return (changed, ())
          }
        }
      }
      try await group.waitForAll()
    }
    let read = try #require(try await store.read(account.id)?.record)
    #expect(read.epoch == 10)
    #expect(read.passwordHash == "h7")
  }

  /// Records read before are answered from memory, never once another process wrote the file;
  /// and a write by one process over a version the other moved on is refused.
  @Test func aRecordChangedByAnotherProcessIsSeenAndItsVersionHolds() async throws {
    let folder = scratch("sessions")
    let here = SessionRecords(try FileRecordStorage(folder))
    let there = SessionRecords(try FileRecordStorage(folder))
    let id = SessionID.random()
    let live = SessionRecord(user: .random(), lastSeen: noon)
    #expect(try await here.create(live, as: id))
    // A change is trusted from memory only once it is older than the file clock's tick.
    try await Task.sleep(for: .milliseconds(60))
    #expect(try await here.read(id)?.record == live)
    let read = try #require(try await here.read(id))
    let ended = SessionRecord(user: nil, lastSeen: noon)
    #expect(try await there.replace(id, with: ended, at: read.version))
    #expect(try await here.read(id)?.record == ended)
    #expect(try await here.replace(id, with: live, at: read.version) == false)
    #expect(try await there.read(id)?.record == ended)
  }

  /// A record's file is JSON, as its name says: its version and the record, which any JSON tool
  /// reads; the files earlier programs wrote (a version line then the record, or the record
  /// alone) are read as the versions they hold.
  @Test func aRecordFileIsJSONAndOlderFilesAreRead() async throws {
    let folder = scratch("records")
    let storage = try FileRecordStorage(folder)
    let record = Data(#"{"note":"ポイ活 \"quoted\"","n":[1,2]}"#.utf8)
    #expect(try await storage.create("plain", record))
    #expect(try await storage.replace("plain", record, at: 1))
    let file = try Data(contentsOf: folder.appendingPathComponent("plain.json"))
    let parsed = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
    #expect(parsed["version"] as? Int == 2)
    let inner = try JSONSerialization.data(withJSONObject: try #require(parsed["record"]), options: .sortedKeys)
    #expect(inner == (try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: record), options: .sortedKeys)))
    #expect(try await storage.read("plain")?.data == record)
    try Data("7\n".utf8 + record).write(to: folder.appendingPathComponent("lined.json"))
    try record.write(to: folder.appendingPathComponent("bare.json"))
    #expect(try await storage.read("lined").map { [$0.version] } == [7])
    #expect(try await storage.read("lined")?.data == record)
    #expect(try await storage.read("bare").map { [$0.version] } == [1])
    #expect(try await storage.replace("lined", record, at: 7), "an older file is written anew at the next version")
    #expect(try await storage.read("lined")?.version == 8)
  }
}
