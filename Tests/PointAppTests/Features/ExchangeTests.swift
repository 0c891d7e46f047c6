import Clocks
import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// Exchanges as requests: held and queued, then fulfilled with the code the source gave or
/// refunded once, as the fulfiller reports it; the limits, the password, stale confirmations, and
/// the support desk moving a pending request through the outbox.
struct ExchangeTests {
  static let code = GiftCode("7K3M-Q9PZ-2HXD-W4RA")
  let gift = ExchangeOption.all[0]

  /// Signed in, the password typed `confirmed` seconds before noon (`nil`: not in this session),
  /// with `balance` earned at noon.
  func makeStore(
    balance: PointAmount, confirmed: TimeInterval? = 60, earnedAt: Date = noon, _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) -> TestStoreOf<Exchange> {
    var ids = 100
    let state = Exchange.State(
      progress: .answered([.fixture(reward: balance)], at: earnedAt, ids: &ids), account: EmailAddress("hanako@example.jp"), addressVerified: true,
      passwordConfirmedAt: confirmed.map { noon - $0 }
    )
    return TestStore(initialState: state) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      dependencies(&$0)
    }
  }

  /// The request `requestExchange` makes of `option` at `date` with hold id `UUID(hold)`.
  func request(
    _ option: ExchangeOption, number: Int = 1, hold: Int = 0, at date: Date = noon, _ status: ExchangeRequest.Status = .pending(attempts: 0)
  ) -> ExchangeRequest {
    ExchangeRequest(number: number, option: option.id, points: option.total, requestedAt: date, key: TransactionID(UUID(hold)), status: status)
  }

  @Test func aGuestCannotExchange() async {
    var ids = 100
    let store = TestStore(initialState: Exchange.State(progress: .answered([.fixture(reward: 50_000)], ids: &ids))) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.optionSelected(gift.id))
    await store.receive(.delegate(.signInRequired))
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1))
    await store.receive(.delegate(.signInRequired))
    #expect(store.state.progress.ledger.balance == 50_000)
  }

  @Test func thePageShowsTheBalanceAndTheLimitsLeft() async throws {
    let store = makeStore(balance: 13_500)
    await store.send(.pageRequested) {
      $0.page = Exchange.Page(balance: 13_500, requestedToday: false, leftThisMonth: 30_000, refusals: [:])
    }
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.delegate.requested)
    await store.send(.fulfilmentFinished(1, .success(Self.code))) { $0.progress.fulfilExchange(1, with: Self.code, at: noon) }
    await store.receive(\.delegate.fulfilled)
    await store.send(.pageRequested) {
      $0.page = Exchange.Page(
        balance: 10_500, requestedToday: true, leftThisMonth: 27_000,
        refusals: Dictionary(uniqueKeysWithValues: ExchangeOption.all.map { ($0.id, PointError.dailyLimit) })
      )
    }
    // The next day: the bank transfer's 10,000 pt and 1,000 pt fee are beyond the balance.
    store.dependencies.date.now = noon + 86_400
    await store.send(.pageRequested) {
      $0.page = Exchange.Page(balance: 10_500, requestedToday: false, leftThisMonth: 27_000, refusals: [ExchangeOption.all[3].id: .insufficientBalance])
    }
  }

  /// An option the provider cannot deliver now is not offered: the page says so, and neither its
  /// confirmation nor a form sent for it holds any points.
  @Test func anOptionTheProviderCannotDeliverIsNotOffered() async throws {
    let eMoney = ExchangeOption.all[1]
    let store = makeStore(balance: 13_500) { $0.giftOffer = GiftOfferClient { GiftOffer(unavailable: [eMoney.id]) } }
    await store.send(.pageRequested) {
      $0.page = Exchange.Page(balance: 13_500, leftThisMonth: 30_000, refusals: [eMoney.id: .optionUnavailable])
    }
    await store.send(.optionSelected(eMoney.id))
    await store.receive(.delegate(.exchangeRefused(.optionUnavailable)))
    await store.send(.exchangeButtonTapped(eMoney.id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.optionUnavailable)))
    #expect(store.state.progress.exchangeCount == 0 && store.state.progress.ledger.balance(at: noon) == 13_500)
    // The others still go.
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.delegate.requested)
  }

  /// The built-in issuer's codes work nowhere: the page and the confirmation say so.
  @Test func testCodesAreSaidToBeForTesting() async throws {
    let store = makeStore(balance: 3_000) { $0.giftOffer = GiftOfferClient { GiftOffer(testCodes: true) } }
    await store.send(.pageRequested) {
      $0.page = Exchange.Page(balance: 3_000, leftThisMonth: 30_000, refusals: Self.beyond(3_000), testCodes: true)
    }
    await store.send(.optionSelected(gift.id)) {
      $0.confirmation = .exchange(self.gift, ledgerCount: 1, testCodes: true)
      $0.asksPassword = false
    }
    #expect(store.state.confirmation?.message?.contains("テスト用") == true)
  }

  /// The options `balance` does not reach.
  static func beyond(_ balance: PointAmount) -> [ExchangeOption.ID: PointError] {
    Dictionary(uniqueKeysWithValues: ExchangeOption.all.filter { $0.total > balance }.map { ($0.id, PointError.insufficientBalance) })
  }

  @Test func aRequestHoldsThePointsAndIsFulfilledWithTheSourcesCode() async throws {
    let store = makeStore(balance: 3_200)
    await store.send(.optionSelected(gift.id)) { $0.confirmation = .exchange(gift, ledgerCount: 1) }
    #expect(store.state.confirmation?.buttons.map(\.action) == [.exchangeButtonTapped(gift.id, ledgerCount: 1), nil])
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      $0.confirmation = nil
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    #expect(store.state.progress.ledger.balance == 200, "held as soon as it is requested")
    #expect(store.state.progress.ledger.recent.last?.reason == .exchangeHold(request: 1, option: gift.id))
    // Nothing is called out in the user's update: the request waits for the fulfiller.
    await store.receive(.delegate(.requested(request(gift))))
    await store.send(.fulfilmentFinished(1, .success(Self.code))) {
      $0.progress.fulfilExchange(1, with: Self.code, at: noon)
    }
    await store.receive(.delegate(.fulfilled(request(gift, .fulfilled(code: Self.code, at: noon)))))
    #expect(store.state.progress.exchangeRequest(1)?.status == .fulfilled(code: Self.code, at: noon))
    #expect(store.state.progress.achievements[.firstExchange] == noon)
    // Reported again (a second process, a lost claim): nothing changes, nothing is refunded.
    await store.send(.fulfilmentFinished(1, .success(GiftCode("OTHER"))))
    await store.send(.fulfilmentFinished(1, .failure(.rejected)))
    await store.send(.cancellationFinished(1, .success(nil)))
    #expect(store.state.progress.ledger.balance == 200)
  }

  @Test func aRejectedRequestGivesItsPointsBackOnce() async throws {
    let store = makeStore(balance: 3_200)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.requested(request(gift))))
    await store.send(.fulfilmentFinished(1, .failure(.rejected))) {
      $0.progress.failExchange(1, refundID: TransactionID(UUID(1)), at: noon)
    }
    await store.receive(\.delegate.failed)
    #expect(store.state.progress.ledger.balance == 3_200)
    #expect(store.state.progress.ledger.recent.last?.reason == .exchangeRefund(request: 1, option: gift.id))
    // A rejection, a code or a cancellation arriving late refunds nothing again and fulfils nothing.
    await store.send(.fulfilmentFinished(1, .failure(.rejected)))
    await store.send(.fulfilmentFinished(1, .success(Self.code)))
    await store.send(.cancellationFinished(1, .success(nil)))
    #expect(store.state.progress.ledger.balance == 3_200)
    #expect(store.state.progress.exchangeUsage(at: noon).today == 0, "a refunded request does not count in the limits")
  }

  @Test func aSourceThatSaysNothingLeavesTheRequestPendingWithTheAttemptNoted() async throws {
    let store = makeStore(balance: 3_200)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.requested(request(gift))))
    await store.send(.fulfilmentFinished(1, .failure(.unavailable))) { $0.progress.noteExchangeAttempt(1) }
    await store.receive(.delegate(.delayed(request(gift, .pending(attempts: 1)))))
    #expect(store.state.progress.ledger.balance == 200, "still held")
    await store.send(.fulfilmentFinished(1, .success(Self.code))) { $0.progress.fulfilExchange(1, with: Self.code, at: noon) }
    await store.receive(\.delegate.fulfilled)
  }

  /// A store whose request 1 (3,000 pt of 6,400) was left pending by a source that said nothing.
  func leftPending() async throws -> TestStoreOf<Exchange> {
    let store = makeStore(balance: 6_400)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.delegate.requested)
    await store.send(.fulfilmentFinished(1, .failure(.unavailable))) { $0.progress.noteExchangeAttempt(1) }
    await store.receive(\.delegate.delayed)
    return store
  }

  /// What the fulfiller asks the source: the code; its status after a call that said nothing;
  /// its end a day after the request was made, or when the desk asks.
  @Test func theFulfillerAsksForTheCodeTheStatusOrTheEnd() {
    let pending = request(gift)
    let day = Exchange.giveUpAfter
    #expect(pending.nextCall(at: noon, answerUnknown: false, endAsked: false, giveUpAfter: day) == .issue)
    #expect(pending.nextCall(at: noon + day - 1, answerUnknown: true, endAsked: false, giveUpAfter: day) == .status)
    #expect(pending.nextCall(at: noon + day, answerUnknown: true, endAsked: false, giveUpAfter: day) == .cancel)
    #expect(pending.nextCall(at: noon + 60, answerUnknown: false, endAsked: true, giveUpAfter: day) == .cancel)
  }

  @Test func aRequestEndedAfterADayGetsTheCodeIfOneWasIssuedAfterAll() async throws {
    let store = try await leftPending()
    store.dependencies.date.now = noon + Exchange.giveUpAfter
    await store.send(.cancellationFinished(1, .success(Self.code))) {
      $0.progress.fulfilExchange(1, with: Self.code, at: noon + Exchange.giveUpAfter)
    }
    await store.receive(\.delegate.fulfilled)
    #expect(store.state.progress.ledger.balance == 3_400)
  }

  @Test func aRequestEndedWithNoCodeIsRefunded() async throws {
    let store = try await leftPending()
    store.dependencies.date.now = noon + Exchange.giveUpAfter
    await store.send(.cancellationFinished(1, .success(nil))) {
      $0.progress.failExchange(1, refundID: TransactionID(UUID(1)), at: noon + Exchange.giveUpAfter)
    }
    await store.receive(\.delegate.failed)
    #expect(store.state.progress.ledger.balance == 6_400)
    // A source that cannot be reached to cancel: still pending, asked again later.
    let unreachable = try await leftPending()
    await unreachable.send(.cancellationFinished(1, .failure(.unavailable))) { $0.progress.noteExchangeAttempt(1) }
    await unreachable.receive(\.delegate.delayed)
  }

  /// The support desk moves a pending request: asked again now, or ended now (written to the
  /// queue with the save, as mail is); a request that has ended is not moved.
  @Test func theDeskMovesAPendingRequestThroughTheQueue() async throws {
    let store = try await leftPending()
    await store.send(.retryRequested(1)) { $0.nudges = [ExchangeNudge(number: 1, end: false)] }
    await store.send(.cancellationRequested(1)) { $0.nudges.append(ExchangeNudge(number: 1, end: true)) }
    await store.send(.cancellationRequested(2))
  }

  /// A store whose user types the password with each request: it is right, and confirmed then.
  func typingThePassword(balance: PointAmount, earnedAt: Date, now: Date) -> TestStoreOf<Exchange> {
    makeStore(balance: balance, confirmed: nil, earnedAt: earnedAt) {
      $0.date.now = now
      $0.accounts.confirmPassword = { _ in
        @Dependency(\.date.now) var now
        return now
      }
    }
  }

  /// Requests `option` at `now`, typing the password unless it was typed in the last ten
  /// minutes, and sees it fulfilled.
  func request(
    _ option: ExchangeOption, number: Int, ledgerCount: Int, at now: Date, typing: Bool = true, in store: TestStoreOf<Exchange>
  ) async throws {
    store.dependencies.date.now = now
    if typing {
      await store.send(.exchangeButtonTapped(option.id, ledgerCount: ledgerCount, password: "correct horse battery"))
      await store.receive(.passwordChecked(.success(now), option.id, ledgerCount: ledgerCount)) {
        $0.passwordConfirmedAt = now
        try $0.progress.requestExchange(option, id: TransactionID(UUID(number - 1)), at: now)
      }
    } else {
      await store.send(.exchangeButtonTapped(option.id, ledgerCount: ledgerCount)) {
        try $0.progress.requestExchange(option, id: TransactionID(UUID(number - 1)), at: now)
      }
    }
    await store.receive(\.delegate.requested)
    await store.send(.fulfilmentFinished(number, .success(Self.code))) { $0.progress.fulfilExchange(number, with: Self.code, at: now) }
    await store.receive(\.delegate.fulfilled)
  }

  @Test func oneRequestADayCountedByTokyosDay() async throws {
    // Requests at 23:59:59 and at 00:00:00 JST are on two days.
    let evening = jst(2026, 11, 22, 23, 59, 59)
    let store = typingThePassword(balance: 20_000, earnedAt: noon - 86_400, now: evening)
    try await request(gift, number: 1, ledgerCount: 1, at: evening, in: store)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 2))
    await store.receive(.delegate(.exchangeRefused(.dailyLimit)))
    try await request(gift, number: 2, ledgerCount: 2, at: evening + 1, typing: false, in: store)
  }

  @Test func thirtyThousandPointsAMonthCountedByTokyosMonth() async throws {
    let card = ExchangeOption.all[2]  // 10,000 pt
    let store = typingThePassword(balance: 60_000, earnedAt: jst(2026, 11, 1), now: jst(2026, 11, 27))
    for number in 1...3 {
      try await request(card, number: number, ledgerCount: number, at: jst(2026, 11, 26 + number), in: store)
    }
    // 30,000 pt in November: its last second still refuses, December's first allows.
    let lastSecond = jst(2026, 12, 1, 0, 0, 0) - 1
    store.dependencies.date.now = lastSecond
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 4, password: "correct horse battery"))
    await store.receive(.passwordChecked(.success(lastSecond), gift.id, ledgerCount: 4)) { $0.passwordConfirmedAt = lastSecond }
    await store.receive(.delegate(.exchangeRefused(.monthlyLimit)))
    try await request(gift, number: 4, ledgerCount: 4, at: jst(2026, 12, 1, 0, 0, 0), typing: false, in: store)
  }

  @Test func aBankTransferHoldsItsFeeToo() async throws {
    let bank = ExchangeOption.all[3]
    let store = makeStore(balance: 11_000)
    await store.send(.exchangeButtonTapped(bank.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(bank, id: TransactionID(UUID(0)), at: noon)
    }
    #expect(store.state.progress.ledger.balance == 0)
    #expect(store.state.progress.exchangeRequest(1)?.points == 11_000)
    await store.receive(\.delegate.requested)
    await store.send(.fulfilmentFinished(1, .success(Self.code))) { $0.progress.fulfilExchange(1, with: Self.code, at: noon) }
    await store.receive(\.delegate.fulfilled)
  }

  @Test func aPasswordTypedTenMinutesAgoOrMoreIsAskedForAgain() async {
    let recent = makeStore(balance: 3_200, confirmed: Exchange.passwordGrace - 1)
    await recent.send(.optionSelected(gift.id)) { $0.confirmation = .exchange(gift, ledgerCount: 1) }
    let stale = makeStore(balance: 3_200, confirmed: Exchange.passwordGrace)
    await stale.send(.optionSelected(gift.id)) {
      $0.confirmation = .exchange(gift, ledgerCount: 1)
      $0.asksPassword = true
    }
    await stale.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) { $0.confirmation = nil }
    await stale.receive(.delegate(.passwordRefused(.passwordRequired)))
    #expect(stale.state.progress.ledger.balance == 3_200)
  }

  @Test func theRightPasswordLetsTheRequestThroughAndAWrongOneDoesNot() async throws {
    let store = makeStore(balance: 3_200, confirmed: nil) {
      $0.accounts.confirmPassword = { password in
        guard password == "correct horse battery" else { throw AccountError.wrongPassword }
        return noon
      }
    }
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1, password: "wrong guess"))
    await store.receive(.passwordChecked(.failure(.wrongPassword), gift.id, ledgerCount: 1))
    await store.receive(.delegate(.passwordRefused(.wrongPassword)))
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1, password: "correct horse battery"))
    await store.receive(.passwordChecked(.success(noon), gift.id, ledgerCount: 1)) {
      $0.passwordConfirmedAt = noon
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.delegate.requested)
    await store.send(.fulfilmentFinished(1, .success(Self.code))) { $0.progress.fulfilExchange(1, with: Self.code, at: noon) }
    await store.receive(\.delegate.fulfilled)
    #expect(store.state.progress.ledger.balance == 200)
  }

  @Test func anExchangeBeyondTheBalanceIsRefused() async {
    let store = makeStore(balance: 2_999)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.insufficientBalance)))
    #expect(store.state.progress.ledger.balance == 2_999)
  }

  @Test func expiredPointsCannotBeExchanged() async {
    // 3,200 pt earned in October 2025 expired when October 2026 ended, even before that is written.
    let store = makeStore(balance: 3_200, earnedAt: jst(2025, 10, 5))
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.insufficientBalance)))
  }

  @Test func anUnknownOptionIsRefused() async {
    let store = makeStore(balance: 50_000)
    await store.send(.exchangeButtonTapped(ExchangeOption.ID("yacht"), ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.unknownOption)))
    await store.send(.optionSelected(ExchangeOption.ID("yacht")))
    await store.receive(.delegate(.exchangeRefused(.unknownOption)))
  }

  @Test func aConfirmationSentAgainAfterTheLedgerMovedSpendsNothing() async throws {
    let store = makeStore(balance: 6_400)
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(\.delegate.requested)
    // The same confirmation again (Back, or a second tab): refused before any limit is looked at.
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.staleConfirmation)))
    #expect(store.state.progress.ledger.balance == 3_400)
  }

  // MARK: - The history, archived requests included

  /// 45 ended requests, the oldest 20 archived: what the store holds, and every request as made.
  func archivedStore(_ archive: @escaping @Sendable (Int) async throws -> ExchangeSegment) -> (TestStoreOf<Exchange>, all: [ExchangeRequest]) {
    var ids = 100
    let all = UserProgress.exchanged(45, ids: &ids)
    var archived = all
    _ = archived.takeArchivable()
    let store = TestStore(initialState: Exchange.State(progress: archived)) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon + days(200)
      $0.ledgerArchive.exchanges = archive
    }
    return (store, all.exchanges)
  }

  @Test func theHistoryListsEveryRequestNewestFirstReadingOlderPagesFromTheArchive() async throws {
    var ids = 100
    var source = UserProgress.exchanged(45, ids: &ids)
    let segments = source.takeArchivable().exchanges
    let (store, all) = archivedStore { start in
      try #require(segments.first { $0.start == start })
    }
    // Page 1 (45…26) is held in the state: nothing is read.
    await store.send(.historyRequested(1)) {
      $0.history = Exchange.History(number: 1, pageCount: 3, requests: all[25..<45].reversed())
    }
    // Page 2 (25…6): 25…21 held, 20…6 archived.
    await store.send(.historyRequested(2)) { $0.history = Exchange.History(number: 2, pageCount: 3) }
    await store.receive(.historyArchiveLoaded(.success(segments))) { $0.history.requests = all[5..<25].reversed() }
    // A page past the end is the last one (5…1).
    await store.send(.historyRequested(9)) { $0.history = Exchange.History(number: 3, pageCount: 3) }
    await store.receive(.historyArchiveLoaded(.success(segments))) { $0.history.requests = all[0..<5].reversed() }
    #expect(store.state.history.requests.first?.status == .fulfilled(code: GiftCode("CODE-5"), at: all[4].requestedAt))
  }

  @Test func anArchivedRequestIsReadFromItsSegment() async throws {
    var ids = 100
    var source = UserProgress.exchanged(45, ids: &ids)
    let segment = try #require(source.takeArchivable().exchanges.first)
    let (store, _) = archivedStore { _ in segment }
    await store.send(.requestOpened(7))
    await store.receive(.archivedRequestLoaded(7, .success(segment)))
    // Held ones and numbers never made read nothing.
    await store.send(.requestOpened(21))
    await store.send(.requestOpened(46))
    await store.send(.requestOpened(0))
  }

  @Test func anArchiveThatCannotBeReadOrHoldsTooLittleIsSaidAndShowsNoGap() async throws {
    let (failing, _) = archivedStore { _ in throw LedgerArchiveError(reason: "disk gone") }
    await failing.send(.historyRequested(3)) { $0.history = Exchange.History(number: 3, pageCount: 3) }
    await failing.receive(.historyArchiveLoaded(.failure(LedgerArchiveError(reason: "disk gone")))) { $0.history.archiveFailed = true }
    await failing.send(.requestOpened(3))
    await failing.receive(.archivedRequestLoaded(3, .failure(LedgerArchiveError(reason: "disk gone"))))

    let short = ExchangeSegment(start: 0, requests: [])
    let (empty, _) = archivedStore { _ in short }
    await empty.send(.historyRequested(3)) { $0.history = Exchange.History(number: 3, pageCount: 3) }
    await empty.receive(.historyArchiveLoaded(.success([short]))) { $0.history.archiveFailed = true }
  }
}
