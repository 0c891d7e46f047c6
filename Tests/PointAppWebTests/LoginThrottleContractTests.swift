import Foundation
import PointApp
import Testing

@testable import PointAppWeb

extension StoreKind {
  /// A login throttle of this kind, and a second one sharing its counts where there can be one:
  /// another process on the data folder, another instance on the database.
  func throttles() async throws -> (LoginThrottle, LoginThrottle?) {
    switch self {
    case .memory:
      return (LoginThrottle(InMemoryRecordStorage()), nil)
    case .files:
      let folder = scratch("limits")
      return (LoginThrottle(try FileRecordStorage(folder)), LoginThrottle(try FileRecordStorage(folder)))
    case .cachedPostgres:
      preconditionFailure("a kind of the record layer's only (StoreKind.testedRecords)")
    case .postgres:
      // A database of its own: another test's clock, hours ahead of this one's, would prune these
      // counts as old (one login in fifty prunes, against its own clock).
      _ = try await TestDatabase.database()  // skipped, saying why, without PostgreSQL's server
      let database = try await TestDatabase.make()
      let table = RecordKind.loginLimits.table
      return (LoginThrottle(PostgresRecordStorage(database, table: table)), LoginThrottle(PostgresRecordStorage(try TestDatabase.another(database), table: table)))
    }
  }
}

/// Password guessing is slowed the same wherever the counts are kept.
struct LoginThrottleContractTests {
  static let kinds = StoreKind.tested

  func refused(_ attempt: () async throws -> Void) async -> Bool {
    do {
      try await attempt()
      return false
    } catch {
      return (error as? AccountError) == .throttled
    }
  }

  @Test(arguments: kinds)
  func fiveFailuresLockAnAddressForFifteenMinutes(kind: StoreKind) async throws {
    let (throttle, other) = try await kind.throttles()
    let email = "guess-\(UUID())@example.jp"
    // Spread over two instances, the guesses still count together.
    for number in 0..<5 {
      try await (number.isMultiple(of: 2) ? throttle : other ?? throttle).admit(email: email, client: nil, now: noon)
    }
    #expect(await refused { try await throttle.admit(email: email, client: nil, now: noon + 60) })
    #expect(await refused { try await (other ?? throttle).admit(email: email, client: nil, now: noon + 14 * 60) })
    // Another address is not locked; the lock ends after fifteen minutes.
    try await throttle.admit(email: "other-\(UUID())@example.jp", client: nil, now: noon + 60)
    try await throttle.admit(email: email, client: nil, now: noon + 15 * 60 + 1)
  }

  @Test(arguments: kinds)
  func aSuccessForgetsTheFailures(kind: StoreKind) async throws {
    let (throttle, other) = try await kind.throttles()
    let email = "forgetful-\(UUID())@example.jp"
    for _ in 0..<4 { try await throttle.admit(email: email, client: nil, now: noon) }
    try await (other ?? throttle).succeeded(email: email)
    for _ in 0..<5 { try await throttle.admit(email: email, client: nil, now: noon) }
    #expect(await refused { try await throttle.admit(email: email, client: nil, now: noon) })
  }

  /// Twenty attempts a minute from one client, whatever the addresses; all counted when they
  /// come at once.
  @Test(arguments: kinds)
  func aClientMayTryTwentyTimesAMinute(kind: StoreKind) async throws {
    let (throttle, other) = try await kind.throttles()
    let client = "192.0.2.\(Int.random(in: 1...254))-\(UUID())"
    let admitted = await withTaskGroup(of: Bool.self) { group in
      for number in 0..<30 {
        let throttle = number.isMultiple(of: 2) ? throttle : other ?? throttle
        group.addTask { (try? await throttle.admit(client: client, now: noon)) != nil }
      }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(admitted == 20)
    #expect(await refused { try await throttle.admit(email: "x-\(UUID())@example.jp", client: client, now: noon + 59) })
    try await throttle.admit(client: client, now: noon + 61)
    try await throttle.admit(client: "another-\(UUID())", now: noon)
  }
}
