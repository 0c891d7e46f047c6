import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// The operators' root feature: signing in, the surveys with their states, closing one early,
/// the audit log; and where each leads.
struct OperatorFeatureTests {
  func makeStore(signedIn: String? = "ops@example.jp", _ operators: (inout OperatorClient) -> Void = { _ in }) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: signedIn.map { OperatorFeature.State.console($0) } ?? OperatorFeature.State()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([.breakfast, .sweets, .expired])
      $0.operators.drafts = { [] }
      operators(&$0.operators)
    }
  }

  @Test func aSignedOutBrowserAtTheConsoleIsAskedToSignIn() async {
    let store = makeStore(signedIn: nil)
    await store.send(.homeRequested) { $0.destination = .login }
    await store.send(.loginPageRequested(refused: false))
    await store.send(.loginPageRequested(refused: true)) { $0.refusal = .wrongCredentials }
  }

  @Test func signingInLeadsToTheSurveys() async {
    let store = makeStore(signedIn: nil) { $0.signIn = { email, password in
      #expect(password == "correct horse battery")
      return email
    } }
    await store.send(.loginSubmitted(email: "ops@example.jp", password: "correct horse battery"))
    await store.receive(\.loginFinished.success) {
      $0.identityChange = .signedIn("ops@example.jp")
      $0.destination = .secondFactor
    }
  }

  @Test func aWrongPasswordLeadsBackToTheFormSayingWhyAndTooManyAre429() async {
    let store = makeStore(signedIn: nil) { $0.signIn = { _, _ in throw AccountError.wrongCredentials } }
    await store.send(.loginSubmitted(email: "ops@example.jp", password: "wrong"))
    await store.receive(\.loginFinished.failure) {
      $0.refusal = .wrongCredentials
      $0.destination = .login
    }
    store.dependencies.operators.signIn = { _, _ in throw AccountError.throttled }
    await store.send(.loginSubmitted(email: "ops@example.jp", password: "wrong")) { $0.refusal = nil }
    await store.receive(\.loginFinished.failure) {
      $0.refusal = .throttled
      $0.destination = .tooManyAttempts
    }
  }

  @Test func theSurveysPageListsEverySurveyNewestFirstWithItsStateNow() async {
    let store = makeStore()
    await store.send(.surveysPageRequested()) { $0.now = noon }
    await store.receive(\.surveysLoaded.success) {
      $0.surveys = SurveySort.newest.sorted([.breakfast, .sweets, .expired])
      $0.destination = .surveys
    }
    #expect(store.state.surveys.map { $0.status(at: noon) } == store.state.surveys.map { $0.id == Survey.expired.id ? .closed : .open })
  }

  /// The list narrowed by state and by words of the id or title: the filter is kept for the page.
  @Test func theSurveysPageIsNarrowedByStateAndWords() async {
    let store = makeStore()
    let filter = SurveyListFilter(status: "closed", query: "終わった")
    await store.send(.surveysPageRequested(filter)) {
      $0.surveyListFilter = filter
      $0.now = noon
    }
    await store.receive(\.surveysLoaded.success) {
      $0.surveys = SurveySort.newest.sorted([.breakfast, .sweets, .expired])
      $0.destination = .surveys
    }
    #expect(filter.includes(id: "expired", title: "終わった調査", status: "closed"))
    #expect(!filter.includes(id: "expired", title: "終わった調査", status: "open"), "another state")
    #expect(!filter.includes(id: "sweets", title: "スイーツ調査", status: "closed"), "other words")
    #expect(SurveyListFilter(query: "SWEETS　スイーツ").includes(id: "sweets", title: "スイーツ調査", status: "open"), "every word, any case")
    #expect(SurveyListFilter().includes(id: "x", title: "y", status: "draft"), "no filter: everything")
  }

  @Test func closingASurveyEarlyLeadsBackToTheSurveys() async {
    let store = makeStore { $0.closeSurvey = { id in
      #expect(id == Survey.sweets.id)
      return Survey.sweets.closed(at: noon)
    } }
    await store.send(.closeSurveyButtonTapped(Survey.sweets.id))
    await store.receive(\.surveyClosed.success) { $0.now = noon }
    await store.receive(\.surveysLoaded.success) {
      $0.surveys = SurveySort.newest.sorted([.breakfast, .sweets, .expired])
      $0.destination = .surveys
    }
  }

  @Test func closingAnUnknownSurveyIsNotFound() async {
    let store = makeStore { $0.closeSurvey = { _ in throw OperatorError.notFound } }
    await store.send(.closeSurveyButtonTapped(SurveyID("nope")))
    await store.receive(\.surveyClosed.failure) { $0.destination = .notFound }
  }

  @Test func theAuditLogIsShownAPageAtATime() async {
    let entry = AuditEntry(at: noon, operatorEmail: "ops@example.jp", action: .surveyClosed, subject: "sweets", before: "期限なし", after: "2026/11/22 12:00")
    let store = makeStore { $0.auditPage = { cursor in
      #expect(cursor == "c1")
      return AuditPage(entries: [entry], next: nil)
    } }
    await store.send(.auditPageRequested(cursor: "c1")) { $0.auditCursor = "c1" }
    await store.receive(\.auditLoaded.success) {
      $0.auditPage = AuditPage(entries: [entry], next: nil)
      $0.destination = .audit
    }
  }

  @Test func anAuditPageFromACursorNoPageGaveIsNotFound() async {
    let store = makeStore { $0.auditPage = { _ in throw OperatorError.notFound } }
    await store.send(.auditPageRequested(cursor: "made-up")) { $0.auditCursor = "made-up" }
    await store.receive(\.auditLoaded.failure) { $0.destination = .notFound }
  }

  /// The web layer answers 404 before any of these reach a signed-out browser; if one ever did,
  /// it would find nothing, and no client would be asked.
  @Test func nothingButSigningInIsForASignedOutBrowser() async {
    let store = makeStore(signedIn: nil)
    await store.send(.surveysPageRequested()) { $0.destination = .notFound }
    for action: OperatorFeature.Action in [.closeSurveyButtonTapped(Survey.sweets.id), .auditPageRequested(cursor: nil), .logoutButtonTapped] {
      await store.send(action)
    }
  }

  @Test func loggingOutLeadsToTheSignInPage() async {
    let store = makeStore()
    await store.send(.logoutButtonTapped) {
      $0.identityChange = .signedOut
      $0.destination = .login
    }
  }
}

/// A survey's state for its operators.
struct SurveyStatusTests {
  @Test func aSurveyIsScheduledOpenFullOrClosed() {
    #expect(Survey.sweets.status(at: Survey.sweets.publishedAt - 1) == .scheduled)
    #expect(Survey.sweets.status(at: noon) == .open)
    #expect(Survey.expired.status(at: noon) == .closed)
    let closed = Survey.sweets.closed(at: noon)
    #expect(closed.status(at: noon - 1) == .open)
    #expect(closed.status(at: noon) == .closed)
    #expect(closed.closed(at: noon + 60).expiresAt == noon, "closing again keeps the earlier deadline")
  }
}

/// A survey's dashboard and the export of its responses, as operator features.
struct ResponsesFeatureTests {
  func makeStore(_ operators: (inout OperatorClient) -> Void = { _ in }) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([.breakfast, .sweets])
      operators(&$0.operators)
    }
  }

  @Test func theDashboardShowsTheSurveysCountsFresh() async {
    let counts = {
      var counts = ResponseCounts()
      counts.add(SurveyResponse(surveyID: Survey.sweets.id, version: 1, respondent: "r-1", outcome: .completed, answers: [], shownAt: noon - 60, sentAt: noon, paid: 60))
      return counts
    }()
    let invitations = InvitationProgress(started: noon - 3600, examined: 1200, sent: 340)
    let store = makeStore {
      $0.responseCounts = { id in
        #expect(id == Survey.sweets.id)
        return counts
      }
      $0.invitations = { id in id == Survey.sweets.id ? invitations : nil }
    }
    await store.send(.dashboardRequested(Survey.sweets.id)) { $0.now = noon }
    await store.receive(.dashboardLoaded(.success(OperatorFeature.Dashboard(survey: .sweets, counts: counts, invitations: invitations)))) {
      $0.survey = .sweets
      $0.counts = counts
      $0.invitations = invitations
      $0.destination = .dashboard(Survey.sweets.id)
    }
    await store.send(.dashboardRequested(SurveyID("nope")))
    await store.receive(.dashboardLoaded(.failure(.notFound))) { $0.destination = .notFound }
  }

  /// An export not cut yet is cut now, nothing audited (its address then names the cut); a cut
  /// one is audited before it starts, and the web shell then streams it.
  @Test func anExportIsAuditedThenSent() async {
    let audited = LockIsolated<[ResponseExport]>([])
    let store = makeStore { $0.exportStarted = { _, export in audited.withValue { $0.append(export) } } }
    let asked = ResponseExport(format: .csv, outcome: .completed, from: today, through: today.next)
    let export = ResponseExport(format: .csv, outcome: .completed, from: today, through: today.next, cut: noon)
    await store.send(.exportRequested(Survey.sweets.id, asked)) { $0.destination = .export(Survey.sweets.id, export) }
    #expect(audited.value.isEmpty)
    await store.send(.exportRequested(Survey.sweets.id, export))
    await store.receive(.exportStarted(.success(.sweets), export)) {
      $0.survey = .sweets
      $0.destination = .export(Survey.sweets.id, export)
    }
    #expect(audited.value == [export])
    await store.send(.exportRequested(SurveyID("nope"), export))
    await store.receive(.exportStarted(.failure(.notFound), export)) { $0.destination = .notFound }
    #expect(audited.value.count == 1, "nothing audited for a survey that is not there")
  }

  /// The export's page: cut now when not yet, the survey loaded for the shell to count the
  /// files; the manifest the same way; nothing audited (no answer leaves).
  @Test func theExportPageIsCutAndNotAudited() async {
    let audited = LockIsolated<[ResponseExport]>([])
    let store = makeStore { $0.exportStarted = { _, export in audited.withValue { $0.append(export) } } }
    let export = ResponseExport(format: .csv, cut: noon)
    await store.send(.exportPageRequested(Survey.sweets.id, ResponseExport(format: .csv)))
    await store.receive(.exportPageLoaded(.success(.sweets), export, manifest: false)) {
      $0.survey = .sweets
      $0.destination = .exportPage(Survey.sweets.id, export)
    }
    await store.send(.exportPageRequested(Survey.sweets.id, export, manifest: true))
    await store.receive(.exportPageLoaded(.success(.sweets), export, manifest: true)) { $0.destination = .exportManifest(Survey.sweets.id, export) }
    await store.send(.exportPageRequested(SurveyID("nope"), export))
    await store.receive(.exportPageLoaded(.failure(.notFound), export, manifest: false)) { $0.destination = .notFound }
    #expect(audited.value.isEmpty)
  }

  @Test func aCutLeavesOutWhatCameAfterAndReadsBackFromItsAddress() throws {
    let export = ResponseExport(format: .csv, cut: noon)
    func response(at date: Date) -> SurveyResponse {
      SurveyResponse(surveyID: Survey.sweets.id, version: 1, respondent: "r", outcome: .completed, answers: [], shownAt: nil, sentAt: date, paid: 1)
    }
    #expect(export.includes(response(at: noon)) && !export.includes(response(at: noon + 1)))
    #expect(export.query == "outcome=&from=&to=&cut=20261122-120000")
    #expect(ResponseExport.cut(from: "20261122-120000") == noon)
    for bad in ["20261122120000", "2026-11-22-12", "20261322-120000", "20261122-126000", "20261122-1200000", "１2026112-120000"] {
      #expect(ResponseExport.cut(from: bad) == nil, "\(bad)")
    }
    #expect(export.summary == "CSV・すべての結果・2026-11-22 12:00:00時点")
  }

  @Test func anExportKeepsTheOutcomeAndTheDaysAskedFor() {
    let export = ResponseExport(format: .jsonl, outcome: .completed, from: today, through: today)
    func response(_ outcome: SurveyResponse.Outcome, at date: Date) -> SurveyResponse {
      SurveyResponse(surveyID: Survey.sweets.id, version: 1, respondent: "r", outcome: outcome, answers: [], shownAt: nil, sentAt: date, paid: 0)
    }
    #expect(export.includes(response(.completed, at: noon)))
    #expect(!export.includes(response(.invalid, at: noon)))
    #expect(!export.includes(response(.completed, at: lastSecondOfTheDay + 1)), "the day after, in Tokyo")
    #expect(export.includes(response(.completed, at: lastSecondOfTheDay)))
    #expect(Day(iso: "2026-11-22") == today && today.iso == "2026-11-22" && Day(iso: "2026-02-30") == nil)
  }
}
