import Foundation
import PointApp
import PostgresNIO
import Testing

@testable import PointAppWeb

/// `pointapp import-files`: a data folder moves into PostgreSQL whole, once, with every balance
/// checked against its ledger there.
@Suite(.enabled(if: TestDatabase.enabled, "PostgreSQL's server is not installed (apt-get install postgresql)"))
struct FileImportTests {
  /// A data folder with a user of 10,000 movements, 1,000 users of three, an account, a session
  /// and the cookie key.
  static func dataFolder() async throws -> (URL, long: UserID, small: [UserID]) {
    let folder = scratch("import")
    let users = UserStates(try FileBackend(folder))
    let long = UserID.random()
    try await users.replace(long, with: LongHistoryTests.longHistory(10_000))
    let small = (0..<1_000).map { _ in UserID.random() }
    let three = LongHistoryTests.longHistory(3)
    for user in small { try await users.replace(user, with: three) }
    let account = Account(email: "moving@example.jp", passwordHash: "hash", user: long, created: noon)
    #expect(try await AccountRecords(FileRecordStorage(folder.appendingPathComponent("accounts"))).create(account, as: account.id))
    _ = try await SessionRecords(FileRecordStorage(folder.appendingPathComponent("sessions")))
      .create(SessionRecord(user: long, account: account.id, lastSeen: noon), as: SessionID("00112233445566778899aabbccddeeff")!)
    try secret.write(to: folder.appendingPathComponent("session.key"))
    // A code the issuer gave, and a request left pending.
    #expect(try await FileRecordStorage(folder.appendingPathComponent("gift-codes")).create("c-7K3M-Q9PZ-2HXD-W4RA", Data("r-x".utf8)))
    try await ExchangeQueue(storage: FileRecordStorage(folder.appendingPathComponent("exchanges-pending"))).add([.init(user: long, number: 1)], at: noon)
    // A survey's response, with its counts.
    let response = SurveyResponse(surveyID: SurveyID("moving"), version: 1, respondent: "r-1", outcome: .completed, answers: [], shownAt: nil, sentAt: noon, paid: 10)
    let backend = try FileBackend(folder)
    try await backend.holding("k") { try await ResponseStore(backend.table(.responses)).record([response]) }
    // A message still to go.
    try await MailQueue(backend).add([MailTests.message(to: "moving@example.jp")])
    return (folder, long, small)
  }

  @Test func aDataFolderMovesOnceWithEveryBalanceEqualToItsLedger() async throws {
    let (folder, long, small) = try await Self.dataFolder()
    let database = try await TestDatabase.make()
    let report = try await FileImport.run(from: folder, into: database)
    #expect(report.users == 1_001)
    #expect(report.usersPresent == 0)
    #expect(report.checked == 1_001)
    #expect(report.mismatches == [])
    #expect(report.accounts == 1)
    #expect(report.sessions == 1)
    #expect(report.giftCodeRecords == 1 && report.pendingExchanges == 1)
    #expect(report.responses == 2, "the response and its survey's counts")
    #expect(report.mail == 1)
    #expect(try await MailQueue(PostgresBackend(database)).waiting(after: nil).map(\.to) == ["moving@example.jp"], "mail still to go goes on")
    let responses = ResponseStore(PostgresBackend(database).table(.responses))
    #expect(try await responses.responses(of: SurveyID("moving"), limit: 10).map(\.respondent) == ["r-1"])
    #expect(try await responses.counts(of: SurveyID("moving")).completes == 1)
    #expect(try await ExchangeQueue(storage: PostgresRecordStorage(database, table: "exchange_pending")).entries() == [.init(user: long, number: 1)])
    // What the database holds is what the folder held, byte for byte, archive included.
    let files = UserStates(try FileBackend(folder))
    let store = UserStates(PostgresBackend(database))
    for user in [long] + small.prefix(3) {
      #expect(try await store.read(user) == files.read(user))
    }
    let state = try SavedState.state(from: try #require(try await store.read(long)))
    #expect(state.progress.ledger.count == 10_000)
    let archived = try await database.query("SELECT count(*) FROM user_archive WHERE starts_with(id, \(long.rawValue + "~ledger-"))")
    #expect(try archived.first?.decode(Int.self) == state.progress.ledger.archivedCount / PointLedger.segmentSize)
    #expect(state.progress.ledger.archivedCount > 9_000)
    #expect(try await AccountRecords(PostgresRecordStorage(database, table: "accounts")).read(AccountID(email: "moving@example.jp"))?.record.user == long)
    #expect(try await SessionRecords(PostgresRecordStorage(database, table: "sessions")).read(SessionID("00112233445566778899aabbccddeeff")!)?.record.user == long)
    #expect(try await Sessions.secret(in: PostgresBackend(database)) == secret, "cookies stay valid")

    // Run again: nothing is imported twice.
    let again = try await FileImport.run(from: folder, into: database)
    #expect(again.users == 0)
    #expect(again.usersPresent == 1_001)
    #expect(again.accounts == 0 && again.sessions == 0)
    #expect(again.giftCodeRecords == 0 && again.pendingExchanges == 0)
    #expect(again.mismatches == [])
  }

  /// A run cut short leaves some users out; the next run imports them, and only them. A user
  /// who changed in the database since is left as the database has them.
  /// Places in quotas move with their users, counted in the database's quota.
  @Test func placesInQuotasMoveWithTheirUsers() async throws {
    let folder = scratch("import")
    let backend = try FileBackend(folder)
    let (files, quotas) = (UserStates(backend), Quotas(backend))
    let survey = QuotaFlowTests.tenPlaces
    let (kept, open, unsaved) = (UserID.random(), UserID.random(), UserID.random())
    for user in [kept, open] {
      try await files.update(user) { _ in
        #expect(try await quotas.claim(survey.id, places: 10, for: user))
        var state = AppFeature.State()
        state.progress.recordAnswer(
          to: survey, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(4))], id: TransactionID(UUID()),
          at: noon, on: Day(noon, in: .tokyo)
        )
        return (try UserFiles.save(state).save, ())
      }
    }
    await #expect(throws: Failure.self) {
      try await files.update(unsaved) { _ -> (save: UserSave?, result: Void) in
        #expect(try await quotas.claim(survey.id, places: 10, for: unsaved))
        throw Failure()
      }
    }
    let database = try await TestDatabase.make()
    let report = try await FileImport.run(from: folder, into: database)
    #expect(report.quotaPlaces == 2)
    let moved = Quotas(PostgresBackend(database))
    #expect(try await moved.taken(survey.id) == 2)
    #expect(try await moved.holds(survey.id, kept))
    #expect(try await moved.holds(survey.id, open))
    #expect(try await !moved.holds(survey.id, unsaved))
    #expect(try await FileImport.run(from: folder, into: database).quotaPlaces == 0, "a second run moves nothing twice")
  }

  @Test func anInterruptedImportIsFinishedByRunningItAgain() async throws {
    let folder = scratch("import")
    let files = UserStates(try FileBackend(folder))
    let users = (0..<6).map { _ in UserID.random() }
    for user in users { try await files.replace(user, with: LongHistoryTests.longHistory(45)) }
    let database = try await TestDatabase.make()
    #expect(try await FileImport.run(from: folder, into: database).users == 6)
    let store = UserStates(PostgresBackend(database))
    // As if the run had stopped before the last two users' transactions.
    try await database.query("DELETE FROM users WHERE id = ANY(\(users.suffix(2).map(\.rawValue)))")
    // And the first user answered one more survey on the new site.
    try await store.replace(users[0], with: LongHistoryTests.longHistory(46))
    let changed = try #require(try await store.read(users[0]))
    #expect(try await changed != files.read(users[0]))
    let report = try await FileImport.run(from: folder, into: database)
    #expect(report.users == 2)
    #expect(report.usersPresent == 4)
    #expect(report.mismatches == [])
    #expect(try await store.read(users[0]) == changed)
    for user in users.dropFirst() { #expect(try await store.read(user) == files.read(user)) }
  }

  /// A user whose saved balance is not their ledger's sum is reported, not hidden.
  @Test func aBalanceThatIsNotItsLedgersSumIsReported() async throws {
    let folder = scratch("import")
    let files = UserStates(try FileBackend(folder))
    let (good, bad) = (UserID.random(), UserID.random())
    try await files.replace(good, with: LongHistoryTests.longHistory(30))
    try await files.replace(bad, with: LongHistoryTests.longHistory(30))
    // Its file says 5 points more were earned than its movements add up to.
    let file = folder.appendingPathComponent("users/\(bad.rawValue).json")
    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    let earned = try #require(text.firstMatch(of: /"totalEarned":(\d+)/))
    try Data(text.replacingOccurrences(of: String(earned.0), with: "\"totalEarned\":\(Int(earned.1)! + 5)").utf8).write(to: file)
    let report = try await FileImport.run(from: folder, into: try await TestDatabase.make())
    #expect(report.users == 2)
    #expect(report.mismatches.count == 1)
    #expect(report.mismatches.first?.hasPrefix(bad.rawValue) == true)
  }
}
