import Clocks
import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// The support desk's feature with a controlled desk client: searching, a user's page, each
/// action and each refusal, and where each leads the operator.
struct SupportDeskFeatureTests {
  static let user = "0123456789abcdef0123456789abcdef"

  func dossier(_ balance: PointAmount = 500) -> Dossier {
    var ids = 0
    return Dossier(user: Self.user, progress: .answered([.fixture(reward: balance)], ids: &ids))
  }

  func makeStore(_ desk: (inout SupportDeskClient) -> Void = { _ in }) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.surveyClient = .catalog([.breakfast, .sweets])
      $0.supportDesk.undeliveredMail = { [] }
      $0.supportDesk.waitingExchanges = { [] }
      desk(&$0.supportDesk)
    }
  }

  @Test func anEmptySearchShowsTheSearchPageWithWhatWaits() async {
    let store = makeStore { $0.waitingAdjustments = { [] } }
    await store.send(.desk(.searchRequested("  ")))
    await store.receive(\.desk.waitingRequested)
    await store.receive(\.desk.waitingLoaded.success)
    await store.receive(\.desk.delegate.search) { $0.destination = .users }
  }

  @Test func theFirstPageListsTheMailThatNeverArrived() async {
    let refused = UndeliveredMail(
      user: Self.user, kind: "verification", subject: "【PointApp】メールアドレスの確認", ended: noon, attempts: 1, reply: "550 no such mailbox"
    )
    let store = makeStore {
      $0.waitingAdjustments = { [] }
      $0.undeliveredMail = { [refused] }
    }
    await store.send(.desk(.waitingRequested(outcome: nil)))
    await store.receive(.desk(.waitingLoaded(.success(SupportDesk.FirstPage(waiting: [], undelivered: [refused]))))) { $0.desk.undelivered = [refused] }
    await store.receive(\.desk.delegate.search) { $0.destination = .users }
  }

  @Test func theFirstPageListsTheExchangesWaitingForTheirCode() async {
    let stuck = WaitingExchange(user: Self.user, number: 3, since: noon - 7_200, attempts: 4, answerUnknown: true)
    let store = makeStore {
      $0.waitingAdjustments = { [] }
      $0.waitingExchanges = { [stuck] }
    }
    await store.send(.desk(.waitingRequested(outcome: nil)))
    await store.receive(.desk(.waitingLoaded(.success(SupportDesk.FirstPage(waiting: [], exchanges: [stuck]))))) { $0.desk.exchanges = [stuck] }
    await store.receive(\.desk.delegate.search) { $0.destination = .users }
  }

  @Test func aSearchLeadsToTheUserItNamesOrSaysNobody() async {
    let store = makeStore {
      $0.find = { $0 == "hanako@example.jp" ? Self.user : nil }
      $0.waitingAdjustments = { [] }
    }
    await store.send(.desk(.searchRequested(" hanako@example.jp "))) { $0.desk.query = "hanako@example.jp" }
    await store.receive(.desk(.searchFinished(.success(Self.user))))
    await store.receive(.desk(.delegate(.user(Self.user, nil)))) {
      $0.now = noon
      $0.destination = .user(Self.user, nil)
    }
    await store.send(.desk(.searchRequested("taro@example.jp"))) { $0.desk.query = "taro@example.jp" }
    await store.receive(.desk(.searchFinished(.success(nil)))) { $0.desk.notFound = true }
    await store.receive(\.desk.waitingRequested)
    await store.receive(\.desk.waitingLoaded.success)
    await store.receive(\.desk.delegate.search) { $0.destination = .users }
  }

  @Test func aUsersPageShowsTheirDossierAndWhatTheFormBeforeDid() async {
    let dossier = dossier()
    let store = makeStore { $0.dossier = { _ in dossier } }
    await store.send(.desk(.dossierRequested(Self.user, outcome: .done(.adjusted)))) { $0.desk.outcome = .done(.adjusted) }
    await store.receive(.desk(.dossierLoaded(.success(dossier)))) {
      $0.desk.dossier = dossier
      $0.desk.adjustmentID = TransactionID(UUID(0))
    }
    await store.receive(.desk(.delegate(.user(Self.user, .done(.adjusted))))) {
      $0.now = noon
      $0.destination = .user(Self.user, .done(.adjusted))
    }
  }

  @Test func anUnknownUserIsNotFoundAndAnUnreadableStoreUnavailable() async {
    let store = makeStore { $0.dossier = { _ in throw OperatorError.notFound } }
    await store.send(.desk(.dossierRequested("nobody", outcome: nil)))
    await store.receive(.desk(.dossierLoaded(.failure(.notFound))))
    await store.receive(.desk(.delegate(.failed(.notFound)))) { $0.destination = .notFound }
    store.dependencies.supportDesk.find = { _ in throw URLError(.timedOut) }
    await store.send(.desk(.searchRequested("x"))) { $0.desk.query = "x" }
    await store.receive(.desk(.searchFinished(.failure(.unavailable))))
    await store.receive(.desk(.delegate(.failed(.unavailable)))) { $0.destination = .unavailable }
  }

  @Test func anAdjustmentIsSentWithItsPointsParsedAsTypedOrRefused() async {
    let sent = LockIsolated<[SupportAction]>([])
    let kept = Adjustments()
    let store = makeStore {
      kept.serve(&$0, as: "ops@example.jp")
      $0.perform = { _, action in
        sent.withValue { $0.append(action) }
        if case let .adjust(points, _, _) = action, points < -500 { throw SupportError.insufficientBalance }
        return Dossier(user: Self.user, progress: UserProgress())
      }
    }
    await store.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "＋１００", reason: "お詫び", id: TransactionID(UUID(7))))))
    await store.receive(.desk(.actionFinished(user: Self.user, .done(.adjusted)))) { $0.desk.outcome = .done(.adjusted) }
    await store.receive(\.desk.delegate.user) {
      $0.now = noon
      $0.destination = .user(Self.user, .done(.adjusted))
    }
    await store.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "−1000", reason: "誤付与", id: TransactionID(UUID(8))))))
    await store.receive(.desk(.actionFinished(user: Self.user, .refused(.insufficientBalance)))) { $0.desk.outcome = .refused(.insufficientBalance) }
    await store.receive(\.desk.delegate.user) { $0.destination = .user(Self.user, .refused(.insufficientBalance)) }
    await store.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "10pt", reason: "x", id: TransactionID(UUID(9))))))
    await store.receive(.desk(.actionFinished(user: Self.user, .refused(.invalidAmount)))) { $0.desk.outcome = .refused(.invalidAmount) }
    await store.receive(\.desk.delegate.user) { $0.destination = .user(Self.user, .refused(.invalidAmount)) }
    // Found by probing the console: a second sign was read as part of the number.
    for typed in ["--5", "+-5", "−-5", "＋－５", "-+5", "- 5", "5-"] {
      await store.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: typed, reason: "x", id: TransactionID(UUID(10))))))
      await store.receive(.desk(.actionFinished(user: Self.user, .refused(.invalidAmount))))
      await store.receive(\.desk.delegate.user)
    }
    #expect(
      sent.value == [.adjust(points: 100, reason: "お詫び", id: TransactionID(UUID(7))), .adjust(points: -1_000, reason: "誤付与", id: TransactionID(UUID(8)))],
      "a number that is not one is never sent"
    )
    #expect(kept.requests.value.mapValues(\.status) == [
      TransactionID(UUID(7)): .applied(by: "ops@example.jp", at: noon),
      TransactionID(UUID(8)): .failed(.insufficientBalance, by: "ops@example.jp", at: noon),
    ])
  }

  @Test func anApprovalSendsTheSurveyAsTheCatalogHasIt() async {
    let sent = LockIsolated<[SupportAction]>([])
    let store = makeStore {
      $0.perform = { _, action in
        sent.withValue { $0.append(action) }
        return Dossier(user: Self.user, progress: UserProgress())
      }
    }
    await store.send(.desk(.actionSubmitted(user: Self.user, .approveAnswer(Survey.sweets.id))))
    await store.receive(.desk(.actionFinished(user: Self.user, .done(.approved)))) { $0.desk.outcome = .done(.approved) }
    await store.receive(\.desk.delegate.user) {
      $0.now = noon
      $0.destination = .user(Self.user, .done(.approved))
    }
    #expect(sent.value == [.approveAnswer(.sweets)])
    // A survey the catalog does not have: nothing to approve.
    await store.send(.desk(.actionSubmitted(user: Self.user, .approveAnswer(SurveyID("gone")))))
    await store.receive(.desk(.actionFinished(user: Self.user, .refused(.notInvalid)))) { $0.desk.outcome = .refused(.notInvalid) }
    await store.receive(\.desk.delegate.user) { $0.destination = .user(Self.user, .refused(.notInvalid)) }
  }

  @Test func aConfirmationAndTheExchangeActionsSayWhatTheyDid() async {
    let confirmed = LockIsolated<[SurveyID]>([])
    let store = makeStore {
      $0.confirmInvalid = { _, survey in confirmed.withValue { $0.append(survey) } }
      $0.perform = { _, action in
        if action == .refundExchange(2) { throw SupportError.notPending }
        return Dossier(user: Self.user, progress: UserProgress())
      }
    }
    for (request, outcome) in [
      (SupportDesk.Request.confirmAnswer(Survey.sweets.id), SupportOutcome.done(.confirmed)),
      (.retryExchange(1), .done(.retried)), (.refundExchange(1), .done(.ended)), (.refundExchange(2), .refused(.notPending)),
    ] {
      await store.send(.desk(.actionSubmitted(user: Self.user, request)))
      await store.receive(.desk(.actionFinished(user: Self.user, outcome))) { $0.desk.outcome = outcome }
      await store.receive(\.desk.delegate.user) {
        $0.now = noon
        $0.destination = .user(Self.user, outcome)
      }
    }
    #expect(confirmed.value == [Survey.sweets.id])
  }

  /// Signed out, or signed in as a role the desk is not for, or with the second factor still to
  /// give: the desk is never asked.
  @Test(arguments: [
    (OperatorFeature.State(), OperatorFeature.Destination.notFound),
    (.console(role: .editor), .forbidden), (.console(role: .analyst), .forbidden),
    (OperatorFeature.State(signedIn: "ops@example.jp", role: .support, secondFactor: .pending(enrolled: true)), .secondFactor),
  ])
  func onlyASupportOrAdministratorWithTheSecondFactorReachesAUser(state: OperatorFeature.State, leads: OperatorFeature.Destination) async {
    let store = TestStore(initialState: state) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.supportDesk.dossier = { _ in
        Issue.record("the desk was asked")
        throw OperatorError.notFound
      }
      $0.supportDesk.perform = { _, _ in
        Issue.record("the desk was asked")
        throw OperatorError.notFound
      }
    }
    await store.send(.desk(.dossierRequested(Self.user, outcome: nil))) { $0.destination = leads }
    await store.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "100", reason: "x", id: TransactionID(UUID(1))))))
  }
}

/// The desk's adjustments as the store keeps them, for the feature's tests: each under its id
/// once, each operator's day counted as the policy allows, decisions moved on as the store does.
final class Adjustments: Sendable {
  let requests = LockIsolated<[TransactionID: AdjustmentRequest]>([:])
  let days = LockIsolated<[String: Int]>([:])

  func serve(_ desk: inout SupportDeskClient, as email: String) {
    desk.openAdjustment = { request, policy in
      #expect(request.requestedBy == email)
      return try self.requests.withValue { requests in
        guard requests[request.id] == nil else { throw SupportError.alreadyDone }
        requests[request.id] = request
        return self.days.withValue { days in
          guard policy.allowsAlone(request.points, after: days[email, default: 0]) else { return false }
          days[email, default: 0] += Int(request.points.magnitude)
          return true
        }
      }
    }
    desk.adjustment = { id in
      guard let found = self.requests.value[id] else { throw SupportError.notWaiting }
      return found
    }
    desk.undeliveredMail = { [] }
    desk.waitingExchanges = { [] }
    desk.waitingAdjustments = { self.requests.value.values.filter(\.isOpen).sorted { $0.requestedAt < $1.requestedAt } }
    desk.decideAdjustment = { id, status in
      try self.requests.withValue { requests in
        guard var found = requests[id] else { throw SupportError.notWaiting }
        switch (found.status, status) {
        case (.waiting, .approved), (.waiting, .refused), (.approved, .applied), (.approved, .failed): break
        default: throw SupportError.notWaiting
        }
        found.status = status
        requests[id] = found
      }
    }
  }
}

/// Four eyes on money: an adjustment above the single limit, or past the operator's day, waits
/// for a second operator (never the one who asked) before it reaches the user.
struct FourEyesTests {
  static let user = "0123456789abcdef0123456789abcdef"

  func store(_ email: String, _ kept: Adjustments, performed: LockIsolated<[SupportAction]>) -> TestStoreOf<OperatorFeature> {
    TestStore(initialState: OperatorFeature.State.console(email, role: .support)) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.adjustmentPolicy = AdjustmentPolicy(singleLimit: 10_000, dailyLimit: 50_000)
      kept.serve(&$0.supportDesk, as: email)
      $0.supportDesk.perform = { _, action in
        performed.withValue { $0.append(action) }
        return Dossier(user: Self.user, progress: UserProgress())
      }
    }
  }

  @Test func aLargeAdjustmentWaitsForASecondOperatorWhoApprovesIt() async {
    let kept = Adjustments()
    let performed = LockIsolated<[SupportAction]>([])
    let asker = store("ops@example.jp", kept, performed: performed)
    let id = TransactionID(UUID(20))
    await asker.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "20000", reason: "キャンペーン補填", id: id))))
    await asker.receive(\.desk.actionFinished) { $0.desk.outcome = .done(.awaitingApproval) }
    await asker.receive(\.desk.delegate.user) {
      $0.now = noon
      $0.destination = .user(Self.user, .done(.awaitingApproval))
    }
    #expect(performed.value.isEmpty, "nothing reaches the user yet")
    let request = AdjustmentRequest(id: id, user: Self.user, points: 20_000, reason: "キャンペーン補填", requestedBy: "ops@example.jp", requestedAt: noon)
    await asker.send(.desk(.adjustmentDecided(id, approve: true)))
    await asker.receive(\.desk.decisionFinished)
    await asker.receive(\.desk.waitingRequested) { $0.desk.outcome = .refused(.ownRequest) }
    await asker.receive(\.desk.waitingLoaded.success) { $0.desk.waiting = [request] }
    await asker.receive(\.desk.delegate.search) { $0.destination = .users }
    #expect(performed.value.isEmpty, "never approved by the one who asked")

    let second = store("support@example.jp", kept, performed: performed)
    await second.send(.desk(.adjustmentDecided(id, approve: true)))
    await second.receive(\.desk.decisionFinished)
    await second.receive(\.desk.waitingRequested) { $0.desk.outcome = .done(.adjustmentApproved) }
    await second.receive(\.desk.waitingLoaded.success)
    await second.receive(\.desk.delegate.search) { $0.destination = .users }
    #expect(performed.value == [.adjust(points: 20_000, reason: "キャンペーン補填", id: id)])
    #expect(kept.requests.value[id]?.status == .applied(by: "support@example.jp", at: noon))

    // Decided: approving or refusing again does nothing.
    await second.send(.desk(.adjustmentDecided(id, approve: false)))
    await second.receive(\.desk.decisionFinished)
    await second.receive(\.desk.waitingRequested) { $0.desk.outcome = .refused(.notWaiting) }
    await second.receive(\.desk.waitingLoaded.success)
    await second.receive(\.desk.delegate.search)
    #expect(performed.value.count == 1)
  }

  @Test func aRefusedAdjustmentNeverReachesTheUser() async {
    let kept = Adjustments()
    let performed = LockIsolated<[SupportAction]>([])
    let id = TransactionID(UUID(21))
    let asker = store("ops@example.jp", kept, performed: performed)
    await asker.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "-15000", reason: "誤付与の回収", id: id))))
    await asker.receive(\.desk.actionFinished) { $0.desk.outcome = .done(.awaitingApproval) }
    await asker.receive(\.desk.delegate.user) {
      $0.now = noon
      $0.destination = .user(Self.user, .done(.awaitingApproval))
    }
    let second = store("support@example.jp", kept, performed: performed)
    await second.send(.desk(.adjustmentDecided(id, approve: false)))
    await second.receive(\.desk.decisionFinished)
    await second.receive(\.desk.waitingRequested) { $0.desk.outcome = .done(.adjustmentRefused) }
    await second.receive(\.desk.waitingLoaded.success)
    await second.receive(\.desk.delegate.search) { $0.destination = .users }
    await second.send(.desk(.adjustmentDecided(id, approve: true)))
    await second.receive(\.desk.decisionFinished)
    await second.receive(\.desk.waitingRequested) { $0.desk.outcome = .refused(.notWaiting) }
    await second.receive(\.desk.waitingLoaded.success)
    await second.receive(\.desk.delegate.search)
    #expect(performed.value.isEmpty)
    #expect(kept.requests.value[id]?.status == .refused(by: "support@example.jp", at: noon))
  }

  /// Five adjustments of 10,000 alone make the day's 50,000; the sixth waits, however small.
  @Test func theDaysLimitMakesTheNextAdjustmentWait() async {
    let kept = Adjustments()
    let performed = LockIsolated<[SupportAction]>([])
    let asker = store("ops@example.jp", kept, performed: performed)
    asker.exhaustivity = .off
    for number in 0..<5 {
      await asker.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "10000", reason: "補填", id: TransactionID(UUID(30 + number))))))
      await asker.receive(\.desk.actionFinished) { $0.desk.outcome = .done(.adjusted) }
    }
    await asker.send(.desk(.actionSubmitted(user: Self.user, .adjust(points: "1", reason: "補填", id: TransactionID(UUID(40))))))
    await asker.receive(\.desk.actionFinished) { $0.desk.outcome = .done(.awaitingApproval) }
    #expect(performed.value.count == 5)
    #expect(kept.days.value == ["ops@example.jp": 50_000], "what waits is not counted against the day")
  }

  @Test func thePolicy() {
    let policy = AdjustmentPolicy(singleLimit: 10_000, dailyLimit: 50_000)
    #expect(policy.allowsAlone(10_000) && policy.allowsAlone(-10_000) && !policy.allowsAlone(10_001) && !policy.allowsAlone(-10_001))
    #expect(policy.allowsAlone(10_000, after: 40_000) && !policy.allowsAlone(1, after: 50_000) && !policy.allowsAlone(-2, after: 49_999))
  }
}

/// The desk's actions on the user's side: `AppFeature`'s `.support`, refused changing nothing.
struct AppFeatureSupportTests {
  func makeStore(_ state: AppFeature.State, quotas: QuotaClient = QuotaClient()) -> TestStoreOf<AppFeature> {
    TestStore(initialState: state) {
      AppFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.quotas = quotas
    }
  }

  func user() throws -> AppFeature.State {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.fixture(reward: 3_500)], ids: &ids)
    state.progress.recordInvalid(to: .sweets, with: [], at: noon - 60)
    try state.progress.requestExchange(ExchangeOption.all[0], id: TransactionID(UUID(99)), at: noon - 86_400)
    return state
  }

  @Test func anAdjustmentIsAMovementWithItsReason() async throws {
    let store = makeStore(try user())
    await store.send(.support(.adjust(points: 250, reason: " お詫び ", id: TransactionID(UUID(70))))) {
      try $0.progress.adjustPoints(by: 250, reason: "お詫び", id: TransactionID(UUID(70)), at: noon)
      $0.destination = .account
    }
    #expect(store.state.progress.ledger.recent.last?.reason == .adjustmentCredit("お詫び"))
    // The same form again (a double click, a retry after a timeout): done once.
    await store.send(.support(.adjust(points: 250, reason: "お詫び", id: TransactionID(UUID(70))))) { $0.supportRefusal = .alreadyDone }
    await store.send(.support(.adjust(points: -10_000, reason: "誤付与", id: TransactionID(UUID(71))))) { $0.supportRefusal = .insufficientBalance }
    #expect(store.state.progress.ledger.balance == 750)
  }

  @Test func anApprovalPaysTheRewardOnce() async throws {
    let store = makeStore(try user())
    await store.send(.support(.approveAnswer(.sweets))) {
      try $0.progress.approveInvalidAnswer(to: .sweets, id: TransactionID(UUID(0)), at: noon)
      $0.destination = .account
    }
    #expect(store.state.progress.answer(to: Survey.sweets.id)?.isCompleted == true)
    #expect(store.state.progress.invalidCount == 0)
    await store.send(.support(.approveAnswer(.sweets))) { $0.supportRefusal = .notInvalid }
    #expect(store.state.progress.ledger.balance.value == 500 + Survey.sweets.reward.value)
  }

  /// An approval takes a place in the survey's quota (and in the answer's cell) as any complete
  /// does: with one left it pays; full, it says so and pays nothing; an answer that is not invalid
  /// takes no place.
  @Test func anApprovalTakesAQuotaPlaceOrSaysTheQuotaIsFull() async throws {
    let cells = QuotaCells(dimensions: [.gender], cells: [.init(values: ["female"], limit: 5)])
    let limited = Survey(
      id: Survey.sweets.id, title: Survey.sweets.title, description: "", category: .food, questions: Survey.sweets.questions,
      reward: Survey.sweets.reward, estimatedMinutes: 3, publishedAt: noon - days(1), expiresAt: nil, quota: Quota(target: 10, collected: 4),
      cells: cells
    )
    let answers = LockIsolated<[Bool]>([true, false])
    let claims = LockIsolated<[String]>([])
    let initial = try user()
    func store() -> TestStoreOf<AppFeature> {
      makeStore(initial, quotas: QuotaClient(claim: { survey, places, cell in
        claims.withValue { $0.append("\(survey.rawValue) \(places ?? -1) \(cell?.name ?? "-")") }
        return answers.withValue { $0.removeFirst() }
      }))
    }
    let room = store()
    await room.send(.support(.approveAnswer(limited, cell: "female"))) { $0.destination = .account }
    await room.receive(.supportPlaceClaimed(limited, .success(true))) {
      try $0.progress.approveInvalidAnswer(to: limited, id: TransactionID(UUID(0)), at: noon)
    }
    #expect(claims.value == ["sweets 6 female"])
    let full = store()
    await full.send(.support(.approveAnswer(limited, cell: "female"))) { $0.destination = .account }
    await full.receive(.supportPlaceClaimed(limited, .success(false))) { $0.supportRefusal = .quotaFull }
    #expect(full.state.progress.answer(to: limited.id)?.isCompleted == false, "nothing paid")
    await room.send(.support(.approveAnswer(limited, cell: "female"))) { $0.supportRefusal = .notInvalid }
    #expect(claims.value.count == 2, "no place taken for an answer that is not invalid")
    // An answer in no cell (none recorded, or one gone since) is not approved into a survey of cells.
    let outside = store()
    await outside.send(.support(.approveAnswer(limited, cell: "male"))) {
      $0.destination = .account
      $0.supportRefusal = .quotaFull
    }
    #expect(claims.value.count == 2, "and takes no place")
  }

  /// The desk moves a stuck request (written to the exchange queue with the save; the fulfiller then
  /// calls its source outside the user's lock): asked again, or ended; one that has ended is refused.
  @Test func aStuckExchangeIsAskedAgainOrEndedThroughTheQueue() async throws {
    let store = makeStore(try user())
    await store.send(.support(.retryExchange(1))) { $0.destination = .account }
    await store.receive(.exchange(.retryRequested(1))) { $0.exchangeNudges = [ExchangeNudge(number: 1, end: false)] }
    await store.send(.support(.refundExchange(1)))
    await store.receive(.exchange(.cancellationRequested(1))) { $0.exchangeNudges.append(ExchangeNudge(number: 1, end: true)) }
    // Ended by the fulfiller (nothing was issued): the desk can move it no more.
    await store.send(.exchange(.cancellationFinished(1, .success(nil)))) {
      $0.progress.failExchange(1, refundID: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.exchange.delegate.failed) {
      $0.flash = Flash(.error, "申請番号1の交換はできませんでした。3,000ptをお返ししました。")
      $0.destination = .exchangeRequest($0.progress.exchangeRequest(1)!)
    }
    await store.send(.support(.retryExchange(1))) {
      $0.supportRefusal = .notPending
      $0.destination = .account
    }
    #expect(store.state.progress.ledger.balance == 3_500)
  }
}
