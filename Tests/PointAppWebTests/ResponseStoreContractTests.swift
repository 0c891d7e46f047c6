import Foundation
import PointApp
import Synchronization
import Testing

@testable import PointAppWeb

extension StoreKind {
  /// A response store of this kind with the user store whose updates record into it (one
  /// backend); a way to open the same responses as the next start of the process finds them
  /// (on files: the data folder as a kill leaves it, copied, then opened as the server opens it,
  /// its commits finished and the counts of the processes gone folded); and another instance's
  /// store on them, alive beside this one (another process on the folder, another server on the
  /// database).
  func responseStores() async throws -> (
    responses: ResponseStore, users: UserStates, reopen: () async throws -> ResponseStore, another: () throws -> ResponseStore
  ) {
    switch self {
    case .memory:
      let backend = MemoryBackend()
      let open = { ResponseStore(backend.table(.responses)) }
      return (open(), UserStates(backend), open, open)
    case .files:
      let folder = scratch("responses")
      let backend = try FileBackend(folder)
      let restart = { () async throws -> ResponseStore in
        let copy = scratch("responses-restarted")
        try FileManager.default.copyItem(at: folder, to: copy)
        let restarted = try FileBackend(copy)
        let responses = ResponseStore(restarted.table(.responses))
        _ = try await responses.foldFinishedShards(in: restarted)
        return responses
      }
      return (ResponseStore(backend.table(.responses)), UserStates(backend), restart, { ResponseStore(try FileBackend(folder).table(.responses)) })
    case .cachedPostgres:
      preconditionFailure("a kind of the record layer's only (StoreKind.testedRecords)")
    case .postgres:
      let backend = PostgresBackend(try await TestDatabase.database())
      let open = { ResponseStore(backend.table(.responses)) }
      return (open(), UserStates(backend), open, open)
    }
  }
}

/// What every response store guarantees, with the user's update that records: a response exists
/// exactly when the answer it is for was saved, whatever failed between (kills: the crash test);
/// once per respondent; listed survey by survey. Each test has surveys of its own (the database is shared).
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

  /// A response commits with the save of its answer, or goes with an update that fails; another
  /// start finds the one kept, counted once.
  @Test(arguments: StoreKind.tested)
  func aResponseIsKeptWithItsSavedAnswerAndGoesWithAFailedUpdate(kind: StoreKind) async throws {
    let (responses, users, reopen, _) = try await kind.responseStores()
    let (saved, failed) = (UserID.random(), UserID.random())
    let kept = response("r-kept")
    try await users.update(saved) { _ in
      try await responses.record([kept])
      return (try answered(survey), ())
    }
    await #expect(throws: Crash.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        try await responses.record([response("r-lost")])
        throw Crash()
      }
    }
    #expect(try await responses.responses(of: survey, limit: 10) == [kept])
    let restarted = try await reopen()
    #expect(try await restarted.responses(of: survey, limit: 10) == [kept])
    #expect(try await restarted.counts(of: survey).completes == 1, "the kept one counted, once")
  }

  /// The counts move with the responses kept, once each, whatever is sent again.
  @Test(arguments: StoreKind.tested)
  func theCountsAreThoseOfTheResponsesKept(kind: StoreKind) async throws {
    let (responses, users, _, _) = try await kind.responseStores()
    var expected = ResponseCounts()
    for number in 0..<3 {
      let user = UserID.random()
      let finished = response("r-\(number)")
      for _ in 0..<2 {  // the second: the same answer sent again, recorded already
        try await users.update(user) { _ in
          try await responses.record([finished])
          return (try answered(survey), ())
        }
      }
      expected.add(finished)
    }
    let failed = UserID.random()
    _ = try? await users.update(failed) { _ -> (save: UserSave?, result: Void) in
      try await responses.record([response("r-lost")])
      throw Crash()
    }
    #expect(try await responses.counts(of: survey) == expected)
    #expect(expected.completes == 3 && expected.secondsPercentile(0.5) == 30)
  }

  /// Counts this store wrote last are read as another instance (another process on the folder,
  /// another server on the database) left them, and the other way round: at once, but on files,
  /// where another process's counts of the last quarter of a second may be missing (its answers'
  /// commits write them a moment later, `DeferredWrites`).
  @Test(arguments: StoreKind.tested)
  func theCountsAnotherInstanceWroteAreRead(kind: StoreKind) async throws {
    let (here, users, _, another) = try await kind.responseStores()
    let there = try another()
    for (number, store) in [here, there, here].enumerated() {
      try await users.update(UserID.random()) { _ in
        try await store.record([response("r-\(number)")])
        return (try answered(survey), ())
      }
    }
    #expect(try await here.counts(of: survey).completes == 3)
    if kind == .files {
      try await eventually { try await there.counts(of: survey).completes == 3 }
    }
    #expect(try await there.counts(of: survey).completes == 3)
  }

  /// On files, each process counts what it records in a record of its own; a start adds those of
  /// the processes gone to their surveys' counts and removes them, in one commit each, so that a
  /// second start finds nothing more to add, and leaves those of the processes alive.
  @Test func onFilesAStartAddsTheCountsOfTheProcessesGoneOnce() async throws {
    let folder = scratch("responses")
    let first = try FileBackend(folder)
    for number in 0..<2 {
      try await UserStates(first).update(UserID.random()) { _ in
        try await ResponseStore(first.table(.responses)).record([response("r-\(number)")])
        return (try answered(survey), ())
      }
    }
    // Killed: its folder as it leaves it. Another process starts there, and records one more.
    let copy = scratch("responses-killed")
    try FileManager.default.copyItem(at: folder, to: copy)
    let alive = try FileBackend(copy, flushEvery: .seconds(3600))
    try await UserStates(alive).update(UserID.random()) { _ in
      try await ResponseStore(alive.table(.responses)).record([response("r-2")])
      return (try answered(survey), ())
    }
    try await alive.flushDeferred()
    let shards = copy.appendingPathComponent("count-shards")
    #expect(try FileManager.default.contentsOfDirectory(atPath: shards.path).filter { $0.hasSuffix(".json") }.count == 2)
    let restarted = try FileBackend(copy)
    let responses = ResponseStore(restarted.table(.responses))
    #expect(try await responses.foldFinishedShards(in: restarted) == 1)
    #expect(try await responses.foldFinishedShards(in: restarted) == 0, "added once")
    #expect(try FileManager.default.contentsOfDirectory(atPath: shards.path).filter { $0.hasSuffix(".json") } == ["\(survey.rawValue)~\(try #require((alive.table(.responses) as? FileRecordStorage)?.countShards?.own)).json"])
    let stored = try await restarted.table(.responses).read(ResponseStore.countsName(survey).recordName)
    let counted = try SavedJSON.decode(ResponseStore.StoredCounts.self, from: try #require(stored).data)
    #expect(counted.counts.completes == 2, "the survey's counts: the first process's")
    #expect(try await responses.counts(of: survey).completes == 3)
  }

  /// On files, a read of a survey's counts holds what a start's fold of them holds: a start in
  /// another process writes the survey's counts and then removes the shard they took, and a read
  /// between the two would count that shard twice. Read while another process holds the fold, the
  /// counts wait for it, then count each answer once.
  @Test func onFilesCountsReadDuringAnotherProcesssFoldWaitForIt() async throws {
    let folder = scratch("responses")
    let here = try FileBackend(folder)
    try await UserStates(here).update(UserID.random()) { _ in
      try await ResponseStore(here.table(.responses)).record([response("r-0")])
      return (try answered(survey), ())
    }
    let there = try FileBackend(folder)  // another process on the folder
    let (folding, began) = AsyncStream.makeStream(of: Void.self)
    let (ending, end) = AsyncStream.makeStream(of: Void.self)
    let fold = Task { [survey] in
      try await there.holding(ResponseStore.foldKey(survey)) {
        began.yield()
        for await _ in ending { break }
      }
    }
    for await _ in folding { break }
    let read = ReadOutcome()
    let reading = Task { [survey] in
      let counts = try await ResponseStore(here.table(.responses)).counts(of: survey)
      read.counts.withLock { $0 = counts }
    }
    try await Task.sleep(for: .milliseconds(300))
    #expect(read.counts.withLock { $0 } == nil, "the read waits for the fold")
    end.yield()
    try await fold.value
    try await reading.value
    #expect(read.counts.withLock { $0 }?.completes == 1)
  }

  private final class ReadOutcome: Sendable {
    let counts = Mutex<ResponseCounts?>(nil)
  }

  /// What the counts keep reads back as it was written (`SavedExactly`, which lets the store keep
  /// the counts it writes without reading them back).
  @Test func countsReadBackAsWritten() throws {
    var counts = ResponseCounts()
    counts.add(response("r-1"))
    counts.add(SurveyResponse(
      surveyID: survey, version: 2, respondent: "r-2", outcome: .screenedOut,
      answers: [SurveyAnswer(questionID: QuestionID("pick"), value: .choices([ChoiceID("a"), ChoiceID("b")]))],
      shownAt: noon - 12.5, sentAt: noon, paid: 3
    ))
    counts.reviewed = 1
    let stored = ResponseStore.StoredCounts(counts: counts)
    #expect(try SavedJSON.decode(ResponseStore.StoredCounts.self, from: SavedJSON.encode(stored)).counts == counts)
  }

  /// A guest's response moves to the account's name with the update that takes the answer into
  /// the account, or not at all; counted once, as it was.
  @Test(arguments: StoreKind.tested)
  func aMovedResponseChangesItsNameWithTheSaveOrNotAtAll(kind: StoreKind) async throws {
    let (responses, users, reopen, _) = try await kind.responseStores()
    let (guest, account, unlucky) = (UserID.random(), UserID.random(), UserID.random())
    try await users.update(guest) { _ in
      try await responses.record([response("r-guest"), response("r-other")])
      return (try answered(survey), ())
    }
    let counted = try await responses.counts(of: survey)
    try await users.update(account) { _ in
      try await responses.move([(ResponseStore.Key(survey, "r-guest"), ResponseStore.Key(survey, "r-account"))])
      return (try answered(survey), ())
    }
    _ = try? await users.update(unlucky) { _ -> (save: UserSave?, result: Void) in
      try await responses.move([(ResponseStore.Key(survey, "r-other"), ResponseStore.Key(survey, "r-unlucky"))])
      throw Crash()
    }
    let restarted = try await reopen()
    #expect(try await restarted.responses(of: survey, limit: 10).map(\.respondent) == ["r-account", "r-other"])
    #expect(try await restarted.counts(of: survey) == counted, "a move counts nothing more")
  }

  /// The support desk approves an answer recorded invalid: its response becomes a complete with
  /// the save that pays it, or not at all, and is counted again once.
  @Test(arguments: StoreKind.tested)
  func anApprovedResponseBecomesACompleteWithTheSaveThatPaysItOrNotAtAll(kind: StoreKind) async throws {
    let (responses, users, reopen, _) = try await kind.responseStores()
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
    let (approved, failed) = (UserID.random(), UserID.random())
    for (user, respondent) in [(approved, "r-approved"), (failed, "r-failed")] {
      try await users.update(user) { _ in
        try await responses.record([invalid(respondent)])
        return (recordedInvalid, ())
      }
    }
    #expect(try await responses.counts(of: survey.id).byOutcome == [.invalid: 2])
    for _ in 0..<2 {  // the second: approved already, nothing more
      try await users.update(approved) { _ in
        try await responses.approve([(key("r-approved"), 40)])
        return (try answered(survey.id), ())
      }
    }
    await #expect(throws: Crash.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        try await responses.approve([(key("r-failed"), 40)])
        throw Crash()
      }
    }
    let restarted = try await reopen()
    let listed = try await restarted.responses(of: survey.id, limit: 10)
    #expect(listed.map(\.respondent) == ["r-approved", "r-failed"])
    #expect(listed.map(\.outcome) == [.completed, .invalid])
    #expect(listed[0] == invalid("r-approved").approved(paying: 40), "its answers, times and flags as they were")
    var expected = ResponseCounts()
    for response in listed { expected.add(response) }
    #expect(try await restarted.counts(of: survey.id) == expected)
    #expect(expected.byOutcome == [.completed: 1, .invalid: 1] && expected.completes == 1)
  }

  @Test(arguments: StoreKind.tested)
  func aResponseIsRecordedOnceAndListedWithItsSurveysOnly(kind: StoreKind) async throws {
    let (responses, users, _, _) = try await kind.responseStores()
    let user = UserID.random()
    let other = SurveyID(survey.rawValue + "-other")
    let mine = (0..<5).map { response("r-\($0)") }
    try await users.update(user) { _ in
      try await responses.record(mine + [response("r-9", in: other)])
      // The same respondent's answer sent again, changed meanwhile: the first one stays.
      let again = SurveyResponse(
        surveyID: survey, version: 2, respondent: mine[0].respondent, outcome: .completed,
        answers: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(1))], shownAt: noon, sentAt: noon + 60, paid: 99
      )
      try await responses.record([again])
      return (nil, ())
    }
    #expect(try await responses.responses(of: survey, limit: 10) == mine)
    #expect(try await responses.responses(of: survey, after: "r-1", limit: 2) == Array(mine[2...3]), "paged by respondent")
    #expect(try await responses.responses(of: other, limit: 10).map(\.respondent) == ["r-9"])
  }
}
