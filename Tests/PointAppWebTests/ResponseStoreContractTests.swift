import Foundation
import PointApp
import Testing

@testable import PointAppWeb

extension StoreKind {
  /// A response store of this kind with the user store whose updates record into it, and a way to
  /// open the same responses anew (another start of the process, another instance).
  func responseStores() async throws -> (responses: ResponseStore, users: UserStates, reopen: () -> ResponseStore) {
    switch self {
    case .memory:
      let (records, pending) = (InMemoryRecordStorage(), InMemoryRecordStorage())
      return (ResponseStore(records, pending: pending), UserStates(MemoryBackend()), { ResponseStore(records, pending: pending) })
    case .files, .groupedFiles, .journal:
      // As the server writes them: synced together.
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-responses-\(UUID().uuidString)")
      let records = try FileRecordStorage(folder.appendingPathComponent("responses"), groupedSyncs: true)
      let journals = folder.appendingPathComponent("responses-pending")
      let users = UserStates(try FileBackend(folder.appendingPathComponent("users")))
      let first = try JournalRecordStorage.own(in: journals)
      let open = { @Sendable (pending: JournalRecordStorage) in
        ResponseStore(records, pending: pending, orphans: { try JournalRecordStorage.orphans(in: journals) })
      }
      // Opened anew: the process that had the first journal is gone, and the next start takes
      // it up.
      return (open(first), users, { first.release(); return open(try! JournalRecordStorage.own(in: journals)) })
    case .cachedPostgres:
      preconditionFailure("a kind of the record layer's only (StoreKind.testedRecords)")
    case .postgres:
      let database = try await TestDatabase.database()
      let records = PostgresRecordStorage(database, table: "responses")
      return (ResponseStore(records, pending: nil), UserStates(PostgresBackend(database)), { ResponseStore(records, pending: nil) })
    }
  }
}

/// What every response store guarantees, with the user's update that records: a response exists
/// exactly when the answer it is for was saved, whatever failed or crashed between; once per
/// respondent; listed survey by survey. Each test has surveys of its own (the database is shared).
struct ResponseStoreContractTests {
  struct Crash: Error {}

  let survey = SurveyID("responses-\(UUID().uuidString.prefix(8).lowercased())")

  func response(_ respondent: String, in survey: SurveyID? = nil) -> SurveyResponse {
    SurveyResponse(
      surveyID: survey ?? self.survey, version: 1, respondent: respondent, outcome: .completed,
      answers: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(4))], shownAt: noon - 30, sentAt: noon, paid: 40
    )
  }

  /// The saved state of a user who answered `survey`.
  func answered(_ survey: SurveyID) throws -> UserSave {
    var state = AppFeature.State()
    state.progress.recordAnswer(
      to: Survey(id: survey, title: "t", description: "d", category: .food, questions: [], reward: 40, estimatedMinutes: 1, publishedAt: noon - 60, expiresAt: nil),
      with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo)
    )
    return try UserFiles.save(state).save
  }

  @Test(arguments: StoreKind.tested)
  func aResponseIsKeptWithItsSavedAnswerAndGoesWithAFailedUpdate(kind: StoreKind) async throws {
    let (responses, users, _) = try await kind.responseStores()
    let (saved, failed) = (UserID.random(), UserID.random())
    let kept = response("r-kept")
    try await users.update(saved) { _ in
      try await responses.record([kept], of: saved)
      return (try answered(survey), ())
    }
    try await responses.settle([kept], of: saved, saved: true)
    let lost = response("r-lost")
    await #expect(throws: Crash.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        try await responses.record([lost], of: failed)
        throw Crash()
      }
    }
    // What the web layer does when an update fails: the user's saved state decides.
    try await responses.settle([ResponseStore.Key(survey, "r-lost")], of: failed, from: users)
    #expect(try await responses.responses(of: survey, limit: 10) == [kept])
  }

  /// A crash after the record and before the save, or after the save and before the settling:
  /// at the next start the user's saved state decides, and neither is left alone.
  @Test(arguments: StoreKind.tested)
  func aCrashLeavesNeitherAnAnswerWithoutItsResponseNorAResponseWithoutItsAnswer(kind: StoreKind) async throws {
    let (responses, users, reopen) = try await kind.responseStores()
    let (saved, unsaved) = (UserID.random(), UserID.random())
    try await users.update(saved) { _ in
      try await responses.record([response("r-saved")], of: saved)
      return (try answered(survey), ())
    }
    // The process dies here, before the settling.
    await #expect(throws: Crash.self) {
      try await users.update(unsaved) { _ -> (save: UserSave?, result: Void) in
        try await responses.record([response("r-unsaved")], of: unsaved)
        throw Crash()  // dies before the save: no settling either
      }
    }
    let restarted = reopen()
    _ = try await restarted.settlePending(from: users)
    #expect(try await restarted.responses(of: survey, limit: 10).map(\.respondent) == ["r-saved"])
    #expect(try await restarted.settlePending(from: users) == 0, "nothing left pending")
    #expect(try await restarted.counts(of: survey).completes == 1, "the kept one counted, once")
  }

  /// The counts move with the responses kept, once each, whatever is settled again.
  @Test(arguments: StoreKind.tested)
  func theCountsAreThoseOfTheResponsesKept(kind: StoreKind) async throws {
    let (responses, users, _) = try await kind.responseStores()
    var expected = ResponseCounts()
    for number in 0..<3 {
      let user = UserID.random()
      let finished = response("r-\(number)")
      try await users.update(user) { _ in
        try await responses.record([finished], of: user)
        return (try answered(survey), ())
      }
      try await responses.settle([finished], of: user, saved: true)
      try await responses.settle([finished], of: user, saved: true)  // again: nothing more
      expected.add(finished)
    }
    let failed = UserID.random()
    _ = try? await users.update(failed) { _ -> (save: UserSave?, result: Void) in
      try await responses.record([response("r-lost")], of: failed)
      throw Crash()
    }
    try await responses.settle([ResponseStore.Key(survey, "r-lost")], of: failed, from: users)
    #expect(try await responses.counts(of: survey) == expected)
    #expect(expected.completes == 3 && expected.secondsPercentile(0.5) == 30)
  }

  /// A guest's response moves to the account's name with the update that takes the answer into
  /// the account, or not at all; counted once, as it was.
  @Test(arguments: StoreKind.tested)
  func aMovedResponseChangesItsNameWithTheSaveOrNotAtAll(kind: StoreKind) async throws {
    let (responses, users, reopen) = try await kind.responseStores()
    let (guest, account, unlucky) = (UserID.random(), UserID.random(), UserID.random())
    try await users.update(guest) { _ in
      try await responses.record([response("r-guest"), response("r-other")], of: guest)
      return (try answered(survey), ())
    }
    try await responses.settle([response("r-guest"), response("r-other")], of: guest, saved: true)
    let counted = try await responses.counts(of: survey)
    try await users.update(account) { _ in
      try await responses.move([(ResponseStore.Key(survey, "r-guest"), ResponseStore.Key(survey, "r-account"))], of: account, from: guest, in: users)
      return (try answered(survey), ())
    }
    try await responses.settle([ResponseStore.Key(survey, "r-account")], of: account, saved: true)
    _ = try? await users.update(unlucky) { _ -> (save: UserSave?, result: Void) in
      try await responses.move([(ResponseStore.Key(survey, "r-other"), ResponseStore.Key(survey, "r-unlucky"))], of: unlucky, from: guest, in: users)
      throw Crash()  // the process dies before the save
    }
    let restarted = reopen()
    _ = try await restarted.settlePending(from: users)
    #expect(try await restarted.responses(of: survey, limit: 10).map(\.respondent) == ["r-account", "r-other"])
    #expect(try await restarted.counts(of: survey) == counted, "a move counts nothing more")
  }

  /// A guest who logs in while the request of their last answer has not yet been told it was
  /// saved (its response pending still, on files): the response moves all the same, never left
  /// under the guest's name while the account holds the answer.
  @Test(arguments: StoreKind.tested)
  func aResponseStillPendingMovesWithTheAnswer(kind: StoreKind) async throws {
    let (responses, users, _) = try await kind.responseStores()
    let (guest, account) = (UserID.random(), UserID.random())
    try await users.update(guest) { _ in
      try await responses.record([response("r-guest")], of: guest)
      return (try answered(survey), ())
    }
    // Its request not told yet: no `settle(saved: true)`.
    try await users.update(account) { _ in
      try await responses.move([(ResponseStore.Key(survey, "r-guest"), ResponseStore.Key(survey, "r-account"))], of: account, from: guest, in: users)
      return (try answered(survey), ())
    }
    try await responses.settle([ResponseStore.Key(survey, "r-account")], of: account, saved: true)
    try await responses.settle([response("r-guest")], of: guest, saved: true)  // told at last
    #expect(try await responses.responses(of: survey, limit: 10).map(\.respondent) == ["r-account"])
    #expect(try await responses.counts(of: survey).completes == 1)
  }

  /// The support desk approves an answer recorded invalid: its response becomes a complete with
  /// the save that pays it, or not at all, and is counted again once, whatever crashed between.
  @Test(arguments: StoreKind.tested)
  func anApprovedResponseBecomesACompleteWithTheSaveThatPaysItOrNotAtAll(kind: StoreKind) async throws {
    let (responses, users, reopen) = try await kind.responseStores()
    let survey = Survey(id: self.survey, title: "t", description: "d", category: .food, questions: [], reward: 40, estimatedMinutes: 1, publishedAt: noon - 60, expiresAt: nil)
    @Sendable func invalid(_ respondent: String) -> SurveyResponse {
      SurveyResponse(
        surveyID: survey.id, version: 1, respondent: respondent, outcome: .invalid, answers: response(respondent).answers,
        shownAt: noon - 2, sentAt: noon, flags: [.speeding], reviewed: true, paid: 0
      )
    }
    @Sendable func key(_ respondent: String) -> ResponseStore.Key { ResponseStore.Key(survey.id, respondent) }
    var invalidState = AppFeature.State()
    invalidState.progress.recordInvalid(to: survey, with: [], at: noon)
    let recordedInvalid = try UserFiles.save(invalidState).save
    let (approved, failed, crashed) = (UserID.random(), UserID.random(), UserID.random())
    for (user, respondent) in [(approved, "r-approved"), (failed, "r-failed"), (crashed, "r-crashed")] {
      try await users.update(user) { _ in
        try await responses.record([invalid(respondent)], of: user)
        return (recordedInvalid, ())
      }
      try await responses.settle([invalid(respondent)], of: user, saved: true)
    }
    #expect(try await responses.counts(of: survey.id).byOutcome == [.invalid: 3])

    try await users.update(approved) { _ in
      try await responses.approve([(key("r-approved"), 40)], of: approved)
      return (try answered(survey.id), ())
    }
    try await responses.settle([key("r-approved")], of: approved, saved: true)
    try await responses.settle([key("r-approved")], of: approved, saved: true)  // again: nothing more
    await #expect(throws: Crash.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        try await responses.approve([(key("r-failed"), 40)], of: failed)
        throw Crash()
      }
    }
    try await responses.settle([key("r-failed")], of: failed, from: users)
    // Saved, then the process dies before settling: the next start settles it from the state.
    try await users.update(crashed) { _ in
      try await responses.approve([(key("r-crashed"), 40)], of: crashed)
      return (try answered(survey.id), ())
    }
    let restarted = reopen()
    _ = try await restarted.settlePending(from: users)
    #expect(try await restarted.settlePending(from: users) == 0, "nothing left pending")

    let listed = try await restarted.responses(of: survey.id, limit: 10)
    #expect(listed.map(\.respondent) == ["r-approved", "r-crashed", "r-failed"])
    #expect(listed.map(\.outcome) == [.completed, .completed, .invalid])
    #expect(listed[0] == invalid("r-approved").approved(paying: 40), "its answers, times and flags as they were")
    var expected = ResponseCounts()
    for response in listed { expected.add(response) }
    #expect(try await restarted.counts(of: survey.id) == expected)
    #expect(expected.byOutcome == [.completed: 2, .invalid: 1] && expected.completes == 2)
  }

  @Test(arguments: StoreKind.tested)
  func aResponseIsRecordedOnceAndListedWithItsSurveysOnly(kind: StoreKind) async throws {
    let (responses, users, _) = try await kind.responseStores()
    let user = UserID.random()
    let other = SurveyID(survey.rawValue + "-other")
    let mine = (0..<5).map { response("r-\($0)") }
    try await users.update(user) { _ in
      try await responses.record(mine + [response("r-9", in: other)], of: user)
      // The same respondent's answer sent again, changed meanwhile: the first one stays.
      let again = SurveyResponse(
        surveyID: survey, version: 2, respondent: mine[0].respondent, outcome: .completed,
        answers: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(1))], shownAt: noon, sentAt: noon + 60, paid: 99
      )
      try await responses.record([again], of: user)
      return (nil, ())
    }
    try await responses.settle(mine + [response("r-9", in: other)], of: user, saved: true)
    #expect(try await responses.responses(of: survey, limit: 10) == mine)
    #expect(try await responses.responses(of: survey, after: "r-1", limit: 2) == Array(mine[2...3]), "paged by respondent")
    #expect(try await responses.responses(of: other, limit: 10).map(\.respondent) == ["r-9"])
  }
}
