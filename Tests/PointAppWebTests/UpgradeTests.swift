import Foundation
import PointApp
import PostgresNIO
import Testing

@testable import PointAppWeb

/// Data kept by an earlier version (before users' states and quotas were records) is found whole
/// by this one: a data folder at its first start, a database by migration 11.
struct UpgradeTests {
  let user = UserID("0123456789abcdef0123456789abcdef")!
  let survey = SurveyID("ten")

  @Test func aDataFolderOfTheEarlierShapeIsMovedIntoRecordsAtStart() async throws {
    let folder = scratch("upgrade")
    let users = folder.appendingPathComponent("users")
    let archive = users.appendingPathComponent("\(user.rawValue).archive")
    let quota = folder.appendingPathComponent("quotas/ten")
    for made in [archive, quota] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
    try Data(#"{"n":1}"#.utf8).write(to: users.appendingPathComponent("\(user.rawValue).json"))
    try Data().write(to: users.appendingPathComponent("\(user.rawValue).lock"))
    try Data(#"{"segment":0}"#.utf8).write(to: archive.appendingPathComponent("ledger-0.json"))
    try Data(#"{"answer":1}"#.utf8).write(to: archive.appendingPathComponent("answer-74656e.json"))
    let (other, crashed) = (UserID.random(), UserID.random())
    try Data().write(to: quota.appendingPathComponent("\(user.rawValue).kept"))
    try Data().write(to: quota.appendingPathComponent("\(other.rawValue).kept"))
    try Data().write(to: quota.appendingPathComponent("\(crashed.rawValue).open"))
    try secret.write(to: folder.appendingPathComponent("session.key"))

    let backend = try FileBackend(folder)
    #expect(try await Sessions.secret(in: backend) == secret, "cookies stay valid")
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("session.key").path))
    let states = UserStates(backend)
    #expect(try await states.read(user) == Data(#"{"n":1}"#.utf8))
    #expect(try await states.archived(["ledger-0", "answer-74656e", "ledger-20"], of: user)
      == ["ledger-0": Data(#"{"segment":0}"#.utf8), "answer-74656e": Data(#"{"answer":1}"#.utf8)])
    let quotas = Quotas(backend)
    #expect(try await quotas.taken(survey) == 3, "an open place, which a crash left, counted as taken")
    #expect(try await quotas.holds(survey, user))
    #expect(try await quotas.holds(survey, crashed))
    #expect(!FileManager.default.fileExists(atPath: archive.path))
    #expect(!FileManager.default.fileExists(atPath: quota.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: users.path).filter { !$0.hasPrefix(".") } == ["\(user.rawValue).json"])

    // A second start finds nothing to move, and the records as they were.
    let again = try FileBackend(folder)
    #expect(try await Quotas(again).taken(survey) == 3)
    #expect(try await UserStates(again).archived(["ledger-0"], of: user).count == 1)
  }

  @Test(.enabled(if: TestDatabase.enabled, TestDatabase.notInstalled))
  func aDatabaseOfTheEarlierShapeIsMigratedWhole() async throws {
    let database = try await TestDatabase.make(migrated: false)
    try await database.query("CREATE TABLE pointapp_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
    for migration in Schema.migrations where migration.version <= 10 {
      for statement in migration.statements { try await database.query(PostgresQuery(unsafeSQL: statement)) }
      try await database.query("INSERT INTO pointapp_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
    }
    let (state, segment) = (Data(#"{"n":1}"#.utf8), Data(#"{"segment":0}"#.utf8))
    try await database.query("INSERT INTO users (id, state, mark) VALUES (\(user.rawValue), \(state), 'm')")
    try await database.query("INSERT INTO user_archive (user_id, name, data) VALUES (\(user.rawValue), 'ledger-0.json', \(segment))")
    try await database.query("INSERT INTO survey_quotas (survey_id, taken) VALUES ('ten', 2)")
    try await database.query("INSERT INTO quota_places (survey_id, user_id) VALUES ('ten', \(user.rawValue)), ('ten', 'someone')")
    try await database.query("INSERT INTO settings (name, value) VALUES ('session-secret', \(secret))")

    #expect(try await Schema.migrate(database).map(\.version) == Array(11...Schema.latest))
    let backend = PostgresBackend(database)
    #expect(try await UserStates(backend).read(user) == state)
    #expect(try await UserStates(backend).archived(["ledger-0"], of: user) == ["ledger-0": segment])
    #expect(try await Quotas(backend).taken(survey) == 2)
    #expect(try await Quotas(backend).holds(survey, user))
    #expect(try await Sessions.secret(in: backend) == secret, "cookies stay valid")
    // And the user's next update finds it, and writes it as a record.
    try await UserStates(backend).update(user) { saved in
      #expect(saved == state)
      return (UserSave(state: Data(#"{"n":2}"#.utf8)), ())
    }
    #expect(try await database.query("SELECT version FROM users WHERE id = \(user.rawValue)").first?.decode(Int64.self) == 2)
    await database.close()
  }

  /// Responses an earlier program left pending in its journals (`responses-pending/`) when it
  /// crashed are settled by the users' states at the first start: kept (and counted) where the
  /// state holds the answer, dropped where it does not; the folder goes.
  @Test func responsesAnEarlierProgramLeftPendingAreSettledByTheUsersStates() async throws {
    let folder = scratch("upgrade")
    let backend = try FileBackend(folder)
    let users = UserStates(backend)
    let (saved, unsaved) = (UserID.random(), UserID.random())
    var state = AppFeature.State()
    for id in [survey, SurveyID("moved")] {
      state.progress.recordAnswer(
        to: Survey(id: id, title: "t", description: "d", category: .food, questions: [], reward: 40, estimatedMinutes: 1, publishedAt: noon - 60, expiresAt: nil),
        with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo)
      )
    }
    let save = try UserFiles.save(state).save
    try await users.update(saved) { _ in (save, ()) }
    func response(_ respondent: String) -> SurveyResponse {
      SurveyResponse(surveyID: survey, version: 1, respondent: respondent, outcome: .completed, answers: [], shownAt: noon - 30, sentAt: noon, paid: 40)
    }
    struct Marker: Encodable {
      var response: SurveyResponse?
      var replaces: String?
    }
    // The earlier journal's frames: kind, version, the name's and the data's lengths, the name,
    // the data, a checksum of all that.
    func frame(_ name: String, _ data: Data?) -> Data {
      var frame = Data([data == nil ? 0 : 1])
      frame.append(littleEndian: UInt64(1))
      frame.append(littleEndian: UInt32(name.utf8.count))
      frame.append(littleEndian: UInt32(data?.count ?? 0))
      frame.append(Data(name.utf8))
      if let data { frame.append(data) }
      frame.append(littleEndian: CommitLog.checksum(frame))
      return frame
    }
    let journal = folder.appendingPathComponent("responses-pending/0123456789abcdef0123456789abcdef")
    try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
    var bytes = frame("\(saved.rawValue)~\(survey.rawValue)~r-saved", try SavedJSON.encode(Marker(response: response("r-saved"))))
    bytes += frame("\(unsaved.rawValue)~\(survey.rawValue)~r-unsaved", try SavedJSON.encode(Marker(response: response("r-unsaved"))))
    bytes += frame("\(saved.rawValue)~\(survey.rawValue)~r-gone", try SavedJSON.encode(Marker(response: response("r-gone"))))
    bytes += frame("\(saved.rawValue)~\(survey.rawValue)~r-gone", nil)  // settled before the crash
    // A guest's response moving into this account (whose state holds the answer), the crash
    // before its new name was written.
    let earlier = SurveyResponse(surveyID: SurveyID("moved"), version: 1, respondent: "r-guest", outcome: .completed, answers: [], shownAt: nil, sentAt: noon, paid: 40)
    #expect(try await backend.table(.responses).create("moved~r-guest", try SavedJSON.encode(earlier)))
    bytes += frame("\(saved.rawValue)~moved~r-account", try SavedJSON.encode(Marker(replaces: "moved~r-guest")))
    try bytes.write(to: journal.appendingPathComponent("journal-0"))

    let responses = ResponseStore(backend.table(.responses))
    #expect(try await responses.settleEarlierJournals(in: folder, users: users) == 3)
    #expect(try await responses.responses(of: survey, limit: 10).map(\.respondent) == ["r-saved"])
    #expect(try await responses.counts(of: survey).completes == 1)
    #expect(try await responses.responses(of: SurveyID("moved"), limit: 10).map(\.respondent) == ["r-account"])
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("responses-pending").path))
    #expect(try await responses.settleEarlierJournals(in: folder, users: users) == 0)
  }
}
