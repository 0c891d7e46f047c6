import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// Who reaches what of the console: each role its own parts, nothing before the second factor,
/// exports and operators only with a second factor given in the last 15 minutes.
struct ConsoleRoleTests {
  func makeStore(_ state: OperatorFeature.State, now: Date = noon) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: state) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = now
      $0.surveyClient = .catalog([.breakfast])
      $0.operators.drafts = { [] }
      $0.operators.auditPage = { _ in AuditPage(entries: [], next: nil) }
      $0.operators.team = { [] }
      $0.operators.responseCounts = { _ in ResponseCounts() }
      $0.operators.invitations = { _ in nil }
      $0.operators.exportStarted = { _, _ in }
    }
  }

  /// One action of each part, and whether each role reaches it.
  static let parts: [(OperatorFeature.Action, ConsoleArea)] = [
    (.surveysPageRequested(), .surveys), (.dashboardRequested(Survey.breakfast.id), .surveys),
    (.newSurveyButtonTapped, .catalog), (.closeSurveyButtonTapped(Survey.breakfast.id), .catalog),
    (.exportRequested(Survey.breakfast.id, ResponseExport(format: .csv)), .exports),
    (.auditPageRequested(cursor: nil), .audit), (.desk(.searchRequested("x")), .desk),
    (.team(.pageRequested(outcome: nil)), .operators), (.team(.changeSubmitted(.disable(id: "x"))), .operators),
  ]

  @Test func eachRoleReachesItsOwnPartsOnly() {
    let expected: [OperatorRole: Set<ConsoleArea>] = [
      .administrator: Set(ConsoleArea.allCases), .editor: [.surveys, .catalog], .support: [.desk], .analyst: [.surveys, .exports],
    ]
    for role in OperatorRole.allCases {
      #expect(Set(ConsoleArea.allCases.filter(role.may)) == expected[role], "\(role)")
    }
    for (action, area) in Self.parts { #expect(action.area == area) }
  }

  /// A role's action outside its parts leads to 403, and nothing is asked of any client: the
  /// store's unset clients would fail the test if one were.
  @Test(arguments: OperatorRole.allCases)
  func aPartOutsideTheRoleIsForbiddenAndNothingHappens(role: OperatorRole) async {
    for (action, area) in Self.parts where !role.may(area) {
      let store = TestStore(initialState: OperatorFeature.State.console(role: role)) {
        OperatorFeature()
      } withDependencies: { $0.date.now = noon }
      await store.send(action) { $0.destination = .forbidden }
    }
  }

  @Test func theConsoleOpensAtTheRolesFirstPart() async {
    let support = makeStore(.console(role: .support))
    await support.send(.homeRequested) { $0.destination = .users }
    let analyst = makeStore(.console(role: .analyst))
    await analyst.send(.homeRequested) { $0.now = noon }
    await analyst.receive(\.surveysLoaded.success) {
      $0.surveys = [.breakfast]
      $0.destination = .surveys
    }
  }

  /// Signed in with the password only: every part waits for the second factor.
  @Test func nothingOfTheConsoleBeforeTheSecondFactor() async {
    for enrolled in [true, false] {
      let state = OperatorFeature.State(signedIn: "ops@example.jp", role: .administrator, secondFactor: .pending(enrolled: enrolled))
      for (action, _) in Self.parts {
        await makeStore(state).send(action) { $0.destination = .secondFactor }
      }
      await makeStore(state).send(.homeRequested) { $0.destination = .secondFactor }
    }
  }

  /// Exports and operators ask for the second factor again once the last was over 15 minutes
  /// ago; the rest does not.
  @Test func exportsAndOperatorsAskForTheSecondFactorAgainAfterFifteenMinutes() async {
    let state = OperatorFeature.State(signedIn: "ops@example.jp", role: .administrator, secondFactor: .given(at: noon - 15 * 60 - 1))
    await makeStore(state).send(.exportRequested(Survey.breakfast.id, ResponseExport(format: .csv))) { $0.destination = .reconfirm }
    await makeStore(state).send(.team(.pageRequested(outcome: nil))) { $0.destination = .reconfirm }
    await makeStore(state).send(.team(.changeSubmitted(.disable(id: "x")))) { $0.destination = .reconfirm }
    let audit = makeStore(state)
    await audit.send(.auditPageRequested(cursor: nil))
    await audit.receive(\.auditLoaded.success) { $0.destination = .audit }

    let fresh = makeStore(OperatorFeature.State(signedIn: "ops@example.jp", role: .administrator, secondFactor: .given(at: noon - 15 * 60)))
    await fresh.send(.team(.pageRequested(outcome: nil)))
    await fresh.receive(\.team.membersLoaded.success)
    await fresh.receive(\.team.delegate.page) { $0.destination = .operators(nil) }
  }
}

/// The second factor as the feature sees it: the code page, enrolment, recovery codes.
struct SecondFactorFeatureTests {
  static let pending = OperatorFeature.State(signedIn: "ops@example.jp", role: .support, secondFactor: .pending(enrolled: true))
  static let unenrolled = OperatorFeature.State(signedIn: "ops@example.jp", role: .support, secondFactor: .pending(enrolled: false))

  func makeStore(_ state: OperatorFeature.State, _ operators: (inout OperatorClient) -> Void = { _ in }) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: state) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([])
      $0.operators.drafts = { [] }
      operators(&$0.operators)
    }
  }

  @Test func aCodeGivenOpensTheConsoleAndAWrongOneLeadsBackSayingSo() async {
    let store = makeStore(Self.pending) { $0.verifySecondFactor = { code in
      guard code == "287082" else { throw AccountError.wrongCredentials }
    } }
    await store.send(.secondFactorPageRequested(next: nil, refused: false)) { $0.destination = .secondFactor }
    await store.send(.secondFactorSubmitted(code: "000000", next: nil))
    await store.receive(\.secondFactorFinished) {
      $0.refusal = .wrongCredentials
      $0.destination = .secondFactor
    }
    await store.send(.secondFactorSubmitted(code: "287082", next: nil)) { $0.refusal = nil }
    await store.receive(\.secondFactorFinished) {
      $0.secondFactor = .given(at: noon)
      $0.destination = .users
    }
  }

  @Test func tooManyWrongCodesAre429() async {
    let store = makeStore(Self.pending) { $0.verifySecondFactor = { _ in throw AccountError.throttled } }
    await store.send(.secondFactorSubmitted(code: "000000", next: nil))
    await store.receive(\.secondFactorFinished) {
      $0.refusal = .throttled
      $0.destination = .tooManyAttempts
    }
  }

  /// Asked again, the code leads back where it was asked: a console path only.
  @Test func aCodeAskedAgainLeadsBackToAConsolePathOnly() async {
    let store = makeStore(.console()) { $0.verifySecondFactor = { _ in } }
    await store.send(.secondFactorPageRequested(next: "/admin/operators", refused: false)) {
      $0.next = "/admin/operators"
      $0.destination = .secondFactor
    }
    await store.send(.secondFactorSubmitted(code: "123456", next: "/admin/surveys/s/responses.csv?outcome="))
    await store.receive(\.secondFactorFinished) { $0.destination = .resume("/admin/surveys/s/responses.csv?outcome=") }
    for elsewhere in ["https://evil.example/", "//evil.example/admin/", "/surveys", "/admin/../x", "/admin/x\u{0}", "/admin//evil"] {
      #expect(OperatorFeature.consolePath(elsewhere) == nil, "\(elsewhere)")
    }
    await store.send(.secondFactorSubmitted(code: "123456", next: "//evil.example/"))
    await store.receive(\.secondFactorFinished) {
      $0.secondFactor = .given(at: noon)
      $0.now = noon
    }
    await store.receive(\.surveysLoaded.success) { $0.destination = .surveys }
  }

  /// With nothing enrolled, the code page is the enrolment page; a code of the new secret
  /// enrols it and shows the recovery codes.
  @Test func theFirstSignInEnrolsAnAuthenticatorAndShowsTheRecoveryCodes() async {
    let enrolment = Enrolment(secret: "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", uri: "otpauth://totp/PointApp:ops%40example.jp?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    let store = makeStore(Self.unenrolled) {
      $0.startEnrolment = { enrolment }
      $0.confirmEnrolment = { code in guard code == "287082" else { throw AccountError.wrongCredentials } }
    }
    await store.send(.secondFactorPageRequested(next: nil, refused: false)) { $0.destination = .enrolment }
    await store.send(.enrolmentPageRequested(refused: false))
    await store.receive(\.enrolmentLoaded.success) {
      $0.enrolment = enrolment
      $0.destination = .enrolment
    }
    await store.send(.enrolmentSubmitted(code: "111111"))
    await store.receive(\.enrolmentFinished) {
      $0.refusal = .wrongCredentials
      $0.destination = .enrolment
    }
    await store.send(.enrolmentSubmitted(code: "287082")) { $0.refusal = nil }
    await store.receive(\.enrolmentFinished) {
      $0.secondFactor = .given(at: noon)
      $0.destination = .recoveryCodes
    }
    await store.send(.recoveryCodesAcknowledged) { $0.destination = .users }
  }

  /// Enrolled already: the enrolment page and its form lead to the code page, and nothing is
  /// asked of the client.
  @Test func anEnrolledOperatorIsNeverShownANewSecret() async {
    let store = makeStore(Self.pending)
    await store.send(.enrolmentPageRequested(refused: false)) { $0.destination = .secondFactor }
    await store.send(.enrolmentSubmitted(code: "287082"))
    await store.send(.recoveryCodesPageRequested)
  }
}

/// `/admin/operators` as the feature sees it.
struct OperatorTeamTests {
  static let members = [
    OperatorSummary(id: "b", email: "z@example.jp", role: .analyst, disabled: true, lastSignIn: nil, enrolled: false),
    OperatorSummary(id: "a", email: "ops@example.jp", role: .administrator, disabled: false, lastSignIn: noon, enrolled: true),
  ]

  @Test func eachChangeIsSentAndSaysWhatItDidOrWhyNot() async {
    let sent = LockIsolated<[TeamChange]>([])
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.operators.team = { Self.members }
      $0.operators.changeTeam = { change in
        sent.withValue { $0.append(change) }
        if case .disable(id: "a") = change { throw TeamError.yourself }
      }
    }
    await store.send(.team(.pageRequested(outcome: nil)))
    await store.receive(\.team.membersLoaded.success) { $0.team.members = Self.members.reversed() }
    await store.receive(\.team.delegate.page) { $0.destination = .operators(nil) }
    await store.send(.team(.changeSubmitted(.add(email: "new@example.jp", role: .support))))
    await store.receive(\.team.changeFinished) { $0.team.outcome = .done(.added) }
    await store.receive(\.team.delegate.page) { $0.destination = .operators(.done(.added)) }
    await store.send(.team(.changeSubmitted(.disable(id: "a"))))
    await store.receive(\.team.changeFinished) { $0.team.outcome = .refused(.yourself) }
    await store.receive(\.team.delegate.page) { $0.destination = .operators(.refused(.yourself)) }
    #expect(sent.value == [.add(email: "new@example.jp", role: .support), .disable(id: "a")])
  }
}
