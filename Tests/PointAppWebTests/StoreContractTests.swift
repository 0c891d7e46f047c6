import Foundation
import PointAppWeb
import Testing

/// Where a store keeps what it keeps: every store guarantee is tested on each.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case memory, files, postgres
  var testDescription: String { rawValue }

  /// The kinds this machine tests: PostgreSQL where its server is (`TestDatabase.enabled`).
  static let tested = allCases.filter { $0 != .postgres || TestDatabase.enabled }

  func stores() async throws -> (sessions: any SessionStore, accounts: any AccountStore) {
    switch self {
    case .memory:
      return (InMemorySessionStore(), InMemoryAccountStore())
    case .files:
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-stores-\(UUID().uuidString)")
      return (
        try JSONFileSessionStore(directory: folder.appendingPathComponent("sessions")),
        try JSONFileAccountStore(directory: folder.appendingPathComponent("accounts"))
      )
    case .postgres:
      let database = try await TestDatabase.shared.value
      return (PostgresSessionStore(database), PostgresAccountStore(database))
    }
  }
}

/// What every session and account store guarantees, in memory, in files and in PostgreSQL alike.
struct StoreContractTests {
  typealias Kind = StoreKind

  @Test(arguments: Kind.tested)
  func aSessionRecordReadsBackAsSaved(kind: Kind) async throws {
    let store = try await kind.stores().sessions
    let id = SessionID.random()
    #expect(try await store.record(id) == nil)
    let record = SessionRecord(user: .random(), account: AccountID(email: "a@example.jp"), epoch: 3, lastSeen: noon, passwordConfirmedAt: noon)
    try await store.save(record, as: id)
    #expect(try await store.record(id) == record)
    let ended = SessionRecord(user: nil, lastSeen: noon + 60)
    try await store.save(ended, as: id)
    #expect(try await store.record(id) == ended)
  }

  @Test(arguments: Kind.tested)
  func ofSimultaneousFirstRecordsOfASessionOneIsMade(kind: Kind) async throws {
    let store = try await kind.stores().sessions
    let id = SessionID.random()
    let records = (0..<20).map { _ in SessionRecord(user: .random(), lastSeen: noon) }
    let made = try await withThrowingTaskGroup(of: SessionRecord?.self) { group in
      for record in records {
        group.addTask { try await store.create(record, as: id) ? record : nil }
      }
      return try await group.reduce(into: [SessionRecord]()) { if let record = $1 { $0.append(record) } }
    }
    #expect(made.count == 1)
    #expect(try await store.record(id) == made.first)
  }

  @Test(arguments: Kind.tested)
  func oneAddressMakesOneAccountHoweverManyRegisterAtOnce(kind: Kind) async throws {
    let store = try await kind.stores().accounts
    let accounts = (0..<20).map { number in
      Account(email: "same@example.jp", passwordHash: "hash-\(number)", user: .random(), created: noon)
    }
    let made = try await withThrowingTaskGroup(of: Account?.self) { group in
      for account in accounts {
        group.addTask { try await store.create(account) ? account : nil }
      }
      return try await group.reduce(into: [Account]()) { if let account = $1 { $0.append(account) } }
    }
    #expect(made.count == 1)
    #expect(try await store.account(AccountID(email: "same@example.jp")) == made.first)
  }

  @Test(arguments: Kind.tested)
  func anAccountIsFoundByItsAddressAndUpdated(kind: Kind) async throws {
    let store = try await kind.stores().accounts
    #expect(try await store.account(AccountID(email: "new@example.jp")) == nil)
    var account = Account(email: "new@example.jp", passwordHash: "h1", user: .random(), created: noon)
    #expect(try await store.create(account))
    account.passwordHash = "h2"
    account.epoch += 1
    try await store.update(account)
    #expect(try await store.account(AccountID(email: "new@example.jp")) == account)
    #expect(try await store.account(AccountID(email: "other@example.jp")) == nil)
  }

  /// Records read before are answered from memory, never once another process wrote the file.
  @Test func aSessionEndedByAnotherProcessIsSeenEnded() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-sessions-\(UUID().uuidString)")
    let here = try JSONFileSessionStore(directory: folder)
    let there = try JSONFileSessionStore(directory: folder)
    let id = SessionID.random()
    let live = SessionRecord(user: .random(), lastSeen: noon)
    try await here.save(live, as: id)
    // A change is trusted from memory only once it is older than the file clock's tick.
    try await Task.sleep(for: .milliseconds(60))
    #expect(try await here.record(id) == live)
    #expect(try await here.record(id) == live)
    let ended = SessionRecord(user: nil, lastSeen: noon)
    try await there.save(ended, as: id)
    #expect(try await here.record(id) == ended)
  }
}
