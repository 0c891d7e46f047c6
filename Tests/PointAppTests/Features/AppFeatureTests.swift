import Clocks
import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// The root feature: each request's actions, and where they lead (`destination`), which is all
/// the web shell reads to answer.
struct AppFeatureTests {
  func makeStore(_ state: AppFeature.State = AppFeature.State()) -> TestStoreOf<AppFeature> {
    TestStore(initialState: state) {
      AppFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.surveyClient = .catalog([.breakfast, .sweets, .expired])
    }
  }

  /// A user who visited today and has answered `surveys`.
  func visited(answered surveys: [Survey] = []) -> AppFeature.State {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered(surveys, ids: &ids)
    state.progress.recordVisit(on: today, at: noon)
    return state
  }

  @Test func openingASurveyShowsItsPage() async {
    let store = makeStore()
    await store.send(.surveyOpened(Survey.sweets.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .survey(.sweets)
    }
  }

  @Test func anUnknownSurveyIsNotFoundAndCountsNoVisit() async {
    let store = makeStore()
    await store.send(.surveyOpened(SurveyID("nope"))) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: SurveyID("nope"))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.notFound = true
      $0.destination = .notFound
    }
    #expect(store.state.progress == UserProgress(), "a page that does not exist changes nothing")
  }

  @Test func aSurveyPastItsDeadlineShowsItsClosedPage() async {
    let store = makeStore()
    await store.send(.surveyOpened(Survey.expired.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.expired.id)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .expired
      $0.surveyDetailPage?.closed = .deadlinePassed
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .surveyClosed(.expired, .deadlinePassed)
    }
  }

  @Test func aCatalogThatCannotBeReadMakesTheSurveyUnavailable() async {
    let store = makeStore()
    store.dependencies.surveyClient.fetch = { _ in throw URLError(.timedOut) }
    await store.send(.surveyOpened(Survey.sweets.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id)
    }
    await store.receive(\.surveyDetail.surveyLoaded.failure) {
      $0.surveyDetailPage?.loadFailed = true
      $0.destination = .unavailable
    }
  }

  @Test func refusedAnswersLeadBackToTheFormWithTheDraftAndNothingElseChanges() async {
    let store = makeStore(visited())
    let draft: AnswerDraft = [QuestionID("frequency"): ["daily"], QuestionID("satisfaction"): ["9"]]
    await store.send(.answersSubmitted(Survey.breakfast.id, draft)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.breakfast.id, intent: .submit(draft))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .breakfast
      $0.surveyDetailPage?.draft = draft
      $0.surveyDetailPage?.errors = [QuestionID("foods"): .required, QuestionID("satisfaction"): .invalidRating]
      $0.draft = SurveyDraft(draft, of: .breakfast)
      $0.destination = .survey(.breakfast)
    }
    #expect(store.state.progress == visited().progress, "refused answers pay nothing and count no visit")

    // Where the refused form leads, the next request: the survey's page, with the draft and its
    // errors again.
    var saved = AppFeature.State()
    (saved.progress, saved.draft) = (store.state.progress, store.state.draft)
    let next = makeStore(saved)
    await next.send(.surveyOpened(Survey.breakfast.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.breakfast.id)
    }
    await next.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .breakfast
      $0.surveyDetailPage?.draft = draft
      $0.surveyDetailPage?.errors = [QuestionID("foods"): .required, QuestionID("satisfaction"): .invalidRating]
      $0.destination = .survey(.breakfast)
    }
  }

  @Test func answeredAnswersPayAndLeadToTheCompletionPage() async throws {
    let store = makeStore(visited())
    await store.send(.answersSubmitted(Survey.sweets.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id, intent: .submit(ratingAnswer))
    }
    let answers = [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))]
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
      $0.progress.recordAnswer(to: .sweets, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    let answered = try #require(store.state.progress.answer(to: Survey.sweets.id))
    await store.receive(.surveyDetail(.delegate(.answered(.sweets, paid: true)))) {
      $0.flash = Flash(.success, "「スイーツ調査」に回答しました。60ptを獲得しました！")
      $0.destination = .answerComplete(.sweets, answered)
    }
    #expect(store.state.progress.ledger.balance == 60)
  }

  @Test func answeringAgainPaysNothingAndSaysSo() async throws {
    let state = visited(answered: [.sweets])
    let store = makeStore(state)
    let answered = try #require(state.progress.answer(to: Survey.sweets.id))
    await store.send(.answersSubmitted(Survey.sweets.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id, intent: .submit(ratingAnswer))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) { $0.surveyDetailPage?.survey = .sweets }
    await store.receive(.surveyDetail(.delegate(.answered(.sweets, paid: false)))) {
      $0.flash = Flash(.error, "このアンケートは回答済みです。ポイントは1回だけもらえます。")
      $0.destination = .alreadyAnswered(.sweets, answered)
    }
    #expect(store.state.progress.ledger.balance == 60)
  }

  @Test func answersToASurveyPastItsDeadlineLeadToItsClosedPage() async {
    let store = makeStore(visited())
    await store.send(.answersSubmitted(Survey.expired.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.expired.id, intent: .submit(ratingAnswer))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .expired
      $0.surveyDetailPage?.closed = .deadlinePassed
      $0.destination = .survey(.expired)
    }
  }

  /// Answers that find no place left lead back to the survey, whose page then says 受付終了; a
  /// user who had passed its screening finds the consolation there.
  @Test func answersThatFindTheSurveyFullLeadToItsClosedPage() async {
    let survey = SurveyQuotaTests.limitedScreened
    var state = visited()
    state.progress.qualify(for: survey.id, at: noon - 300)
    let store = TestStore(initialState: state) {
      AppFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.surveyClient = .catalog([survey])
      $0.quotas = QuotaClient(claim: { _, _, _ in false })
    }
    await store.send(.answersSubmitted(survey.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: survey.id, intent: .submit(ratingAnswer))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) { $0.surveyDetailPage?.survey = survey }
    let rated = [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))]
    await store.receive(.surveyDetail(.placeClaimed(rated, .success(false)))) {
      $0.surveyDetailPage?.closed = .full
      $0.progress.closeAfterScreening(of: survey, consolation: 3, id: TransactionID(UUID(0)), at: noon)
      $0.destination = .survey(survey)
    }
    // Its page, counted full now.
    let full = survey.counting(taken: 5)
    store.dependencies.surveyClient = .catalog([full])
    await store.send(.surveyOpened(survey.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: survey.id)
      $0.destination = nil
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = full
      $0.surveyDetailPage?.closed = .full
      $0.destination = .surveyClosed(full, .full)
    }
    #expect(store.state.progress.ledger.balance == 3)
  }

  @Test func theCompletionPageShowsWhatAnsweringPaid() async throws {
    let state = visited(answered: [.sweets])
    let store = makeStore(state)
    let answered = try #require(state.progress.answer(to: Survey.sweets.id))
    await store.send(.surveyCompletionOpened(Survey.sweets.id)) {
      $0.missionsDay = today
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id, intent: .seeCompletion)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
      $0.destination = .answerComplete(.sweets, answered)
    }
  }

  @Test func theCompletionPageOfASurveyNotAnsweredLeadsToTheSurvey() async {
    let store = makeStore(visited())
    await store.send(.surveyCompletionOpened(Survey.sweets.id)) {
      $0.missionsDay = today
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id, intent: .seeCompletion)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
      $0.destination = .survey(.sweets)
    }
  }

  @Test func aNewUserAnswersASurveyAndClaimsAMission() async throws {
    let store = makeStore()
    await store.send(.surveyList(.pageRequested(category: nil, sort: .newest))) {
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .surveyList
    }
    await store.receive(\.surveyList.surveysLoaded.success) {
      $0.surveyListPage.surveys = [.sweets, .breakfast]
      $0.surveyListPage.closedSurveys = [.expired]
      $0.surveyListPage.newSurveys = [Survey.sweets.id]
    }
    await store.send(.answersSubmitted(Survey.sweets.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id, intent: .submit(ratingAnswer))
      $0.destination = nil
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
      $0.progress.recordAnswer(
        to: .sweets, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))],
        id: TransactionID(UUID(0)), at: noon, on: today
      )
    }
    let answered = try #require(store.state.progress.answer(to: Survey.sweets.id))
    await store.receive(.surveyDetail(.delegate(.answered(.sweets, paid: true)))) {
      $0.flash = Flash(.success, "「スイーツ調査」に回答しました。60ptを獲得しました！")
      $0.destination = .answerComplete(.sweets, answered)
    }
    await store.send(.flashShown) { $0.flash = nil }

    await store.send(.missions(.claimButtonTapped(.answerOne))) {
      $0.missionsDay = today
      try $0.progress.claimMission(.answerOne, id: TransactionID(UUID(1)), at: noon, on: today)
      $0.destination = .missions
    }
    await store.receive(.missions(.delegate(.claimed(.answerOne)))) {
      $0.flash = Flash(.success, "ミッション達成！ボーナス10ptを受け取りました。")
    }

    #expect(store.state.progress.ledger.balance == 70)
    #expect(store.state.progress.streak.current == 1)
    #expect(store.state.progress.achievements == [.firstAnswer: noon])
  }

  @Test func aRefusedClaimLeadsBackToTheMissionsAndSaysWhy() async {
    let store = makeStore(visited())
    await store.send(.missions(.claimButtonTapped(.answerThree))) {
      $0.missionsDay = today
      $0.destination = .missions
    }
    await store.receive(.missions(.delegate(.claimRefused(.missionNotCompleted)))) {
      $0.flash = Flash(.error, "このミッションはまだ達成していません。")
    }
  }

  @Test func everyPageCountsAsTheDaysVisitOnce() async {
    let store = makeStore()
    await store.send(.dashboard(.pageRequested)) {
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .points
    }
    await store.receive(\.surveyTitlesLoaded) {
      $0.surveyTitles = [Survey.breakfast.id: Survey.breakfast.title, Survey.sweets.id: Survey.sweets.title, Survey.expired.id: Survey.expired.title]
    }
    await store.send(.history(.pageRequested(1))) { $0.destination = .history }
    await store.receive(\.surveyTitlesLoaded)
    await store.send(.exchange(.pageRequested)) {
      $0.exchangePage = Exchange.Page(
        balance: 0, refusals: Dictionary(uniqueKeysWithValues: ExchangeOption.all.map { ($0.id, .insufficientBalance) })
      )
      $0.destination = .exchange
    }
    await store.send(.missions(.pageRequested)) {
      $0.missionsDay = today
      $0.destination = .missions
    }
    #expect(store.state.progress.missions.missions(on: today).first?.isCompleted == true)
  }

  @Test func aUserBackAfterAYearFindsTheExpiryWrittenOnceBeforeAnyPageSeesTheBalance() async {
    // 500 pt earned in October 2025 expired when October 2026 ended; the first action after
    // writes it off, dated then, and the page shows what is left.
    var state = AppFeature.State()
    state.progress.recordAnswer(to: .fixture(id: "old", reward: 500), with: [], id: TransactionID(UUID(90)), at: jst(2025, 10, 20), on: today)
    state.progress.recordAnswer(to: .fixture(id: "new", reward: 40), with: [], id: TransactionID(UUID(91)), at: jst(2026, 11, 1), on: today)
    let store = makeStore(state)
    await store.send(.dashboard(.pageRequested)) {
      $0.progress.expire(at: noon) { TransactionID(UUID(0)) }
      $0.progress.recordVisit(on: today, at: noon)
      $0.pointsPage = PointDashboard.Page(rank: .bronze, earnedForNextMonth: 40, expiring: [])
      $0.destination = .points
    }
    #expect(store.state.progress.ledger.recent.last == PointTransaction(
      id: TransactionID(UUID(0)), date: jst(2026, 11, 1, 0, 0, 0), amount: 500, reason: .expiry(Month(year: 2025, month: 10))
    ))
    #expect(store.state.progress.ledger.balance == 40)
    await store.receive(\.surveyTitlesLoaded) {
      $0.surveyTitles = [Survey.breakfast.id: Survey.breakfast.title, Survey.sweets.id: Survey.sweets.title, Survey.expired.id: Survey.expired.title]
    }
    // Nothing more to write: the next page changes nothing.
    await store.send(.history(.pageRequested(1))) {
      $0.historyPage = PointHistory.Page(number: 1, pageCount: 1, transactions: $0.progress.ledger.recent.reversed())
      $0.destination = .history
    }
    await store.receive(\.surveyTitlesLoaded)
  }

  @Test func ledgerPagesNameSurveysByIdWhenTheCatalogCannotBeRead() async {
    let store = makeStore(visited())
    store.dependencies.surveyClient.fetchAll = { throw URLError(.timedOut) }
    await store.send(.dashboard(.pageRequested)) { $0.destination = .points }
    await store.receive(\.surveyTitlesLoaded)
    #expect(store.state.surveyTitles.isEmpty)
  }

  @Test func anUnreadableHistoryArchiveMakesThePageUnavailable() async {
    var state = visited()
    var ids = 100
    for number in 0..<30 {
      state.progress.recordAnswer(
        to: .fixture(id: "s\(number)", reward: 1), with: [], id: TransactionID(UUID(ids)), at: noon, on: today
      )
      ids += 1
    }
    _ = state.progress.takeArchivable()
    let store = makeStore(state)
    store.dependencies.ledgerArchive.segment = { _ in throw LedgerArchiveError(reason: "disk gone") }
    let oldest = state.progress.ledger.pageSpan(99, size: PointHistory.pageSize)
    await store.send(.history(.pageRequested(oldest.number))) {
      $0.historyPage = PointHistory.Page(number: oldest.number, pageCount: oldest.pageCount)
      $0.destination = .history
    }
    await store.receive(\.history.archiveLoaded.failure) {
      $0.historyPage.archiveFailed = true
      $0.destination = .unavailable
    }
    await store.receive(\.surveyTitlesLoaded) {
      $0.surveyTitles = [Survey.breakfast.id: Survey.breakfast.title, Survey.sweets.id: Survey.sweets.title, Survey.expired.id: Survey.expired.title]
    }
  }

  /// Signed in, the password typed a minute ago.
  func signedIn(_ state: AppFeature.State) -> AppFeature.State {
    var state = state
    state.account = EmailAddress("hanako@example.jp")
    state.addressStatus = AddressStatus(verifiedAt: noon - 3600)
    state.passwordConfirmedAt = noon - 60
    return state
  }

  @Test func choosingAnExchangeLeadsToItsConfirmation() async {
    let store = makeStore(signedIn(AppFeature.State()))
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.optionSelected(gift.id))) {
      $0.exchangeConfirmation = .exchange(gift, ledgerCount: 0)
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .exchangeConfirmation(gift, .exchange(gift, ledgerCount: 0))
    }
  }

  @Test func aGuestIsAskedToSignInBeforeExchanging() async {
    let store = makeStore(visited())
    await store.send(.exchange(.optionSelected(ExchangeOption.all[0].id))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.signInRequired))) {
      $0.flash = Flash(.error, "ポイント交換にはログインが必要です。ログインするか、新規登録してください。")
      $0.destination = .login
    }
  }

  @Test func anExchangeForAnOptionThatDoesNotExistIsNotFound() async {
    let store = makeStore(visited())
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.ID("nope"), ledgerCount: 0))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.exchangeRefused(.unknownOption)))) { $0.destination = .notFound }
  }

  @Test func aRefusedExchangeLeadsBackToTheExchangeAndSaysWhy() async {
    let store = makeStore(signedIn(visited()))
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 0))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.exchangeRefused(.insufficientBalance)))) {
      $0.flash = Flash(.error, "ポイントが足りません。")
    }
  }

  @Test func aRequestLeadsToItsOwnPageWithItsCode() async throws {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.fixture(reward: 3_000)], ids: &ids)
    let store = makeStore(signedIn(state))
    let code = GiftCode("7K3M-Q9PZ-2HXD-W4RA")
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.exchangeButtonTapped(gift.id, ledgerCount: 1))) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
      $0.destination = .exchange
    }
    let requested = ExchangeRequest(number: 1, option: gift.id, points: 3_000, requestedAt: noon, key: TransactionID(UUID(0)))
    await store.receive(.exchange(.delegate(.requested(requested)))) {
      $0.flash = Flash(.success, "交換を申請しました（申請番号1）。")
      $0.destination = .exchangeRequest(requested)
    }
    // The fulfiller reports the source's code in a new update.
    await store.send(.exchange(.fulfilmentFinished(1, .success(code)))) {
      $0.progress.fulfilExchange(1, with: code, at: noon)
    }
    let fulfilled = try #require(store.state.progress.exchangeRequest(1))
    await store.receive(.exchange(.delegate(.fulfilled(fulfilled)))) {
      $0.flash = Flash(.success, "交換が完了しました（申請番号1）。")
      $0.destination = .exchangeRequest(fulfilled)
    }
    // Its page, and the list; a number the user never had is not found.
    await store.send(.exchange(.requestOpened(1))) { $0.progress.recordVisit(on: today, at: noon) }
    await store.send(.exchange(.historyRequested(1))) {
      $0.exchangeHistoryPage = Exchange.History(requests: [fulfilled])
      $0.destination = .exchangeHistory
    }
    await store.send(.exchange(.requestOpened(2))) { $0.destination = .notFound }
  }

  @Test func anArchivedRequestLeadsToItsPageOnceReadAndAnUnreadableOneIsUnavailable() async throws {
    var ids = 100
    var state = signedIn(AppFeature.State())
    state.progress = .exchanged(45, ids: &ids)
    let seventh = try #require(state.progress.exchangeRequest(7))
    let segment = try #require(state.progress.takeArchivable().exchanges.first)
    let store = makeStore(state)
    store.dependencies.ledgerArchive.exchanges = { _ in segment }
    await store.send(.exchange(.requestOpened(7)))
    await store.receive(.exchange(.archivedRequestLoaded(7, .success(segment)))) {
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .exchangeRequest(seventh)
    }
    await store.send(.exchange(.requestOpened(46))) { $0.destination = .notFound }
    store.dependencies.ledgerArchive.exchanges = { _ in throw LedgerArchiveError(reason: "disk gone") }
    await store.send(.exchange(.requestOpened(7)))
    await store.receive(.exchange(.archivedRequestLoaded(7, .failure(LedgerArchiveError(reason: "disk gone"))))) {
      $0.destination = .unavailable
    }
    await store.send(.exchange(.historyRequested(3))) {
      $0.exchangeHistoryPage = Exchange.History(number: 3, pageCount: 3)
      $0.destination = .exchangeHistory
    }
    await store.receive(\.exchange.historyArchiveLoaded.failure) {
      $0.exchangeHistoryPage.archiveFailed = true
      $0.destination = .unavailable
    }
  }

  @Test func aRejectedRequestSaysItsPointsCameBack() async throws {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.fixture(reward: 3_000)], ids: &ids)
    let store = makeStore(signedIn(state))
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.exchangeButtonTapped(gift.id, ledgerCount: 1))) {
      try $0.progress.requestExchange(gift, id: TransactionID(UUID(0)), at: noon)
      $0.destination = .exchange
    }
    await store.receive(\.exchange.delegate.requested) {
      $0.flash = Flash(.success, "交換を申請しました（申請番号1）。")
      $0.destination = .exchangeRequest(ExchangeRequest(number: 1, option: gift.id, points: 3_000, requestedAt: noon, key: TransactionID(UUID(0))))
    }
    await store.send(.exchange(.fulfilmentFinished(1, .failure(.rejected)))) {
      $0.progress.failExchange(1, refundID: TransactionID(UUID(1)), at: noon)
    }
    await store.receive(\.exchange.delegate.failed) {
      $0.flash = Flash(.error, "申請番号1の交換はできませんでした。3,000ptをお返ししました。")
      $0.destination = .exchangeRequest($0.progress.exchangeRequest(1)!)
    }
    #expect(store.state.progress.ledger.balance == 3_000)
  }
}

/// Signing in and out: the root says who the browser is from now on (`identityChange`), which
/// the web layer turns into a new session.
struct AppFeatureAccountTests {
  let address = EmailAddress("hanako@example.jp")!

  func makeStore(_ state: AppFeature.State = AppFeature.State(), _ accounts: (inout AccountClient) -> Void = { _ in }) -> TestStoreOf<AppFeature> {
    TestStore(initialState: state) {
      AppFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.calendar = .tokyo
      accounts(&$0.accounts)
    }
  }

  @Test func aRefusedFormLeadsBackToItWithTheAddressAndWhy() async {
    let store = makeStore()
    await store.send(.signInForm(.submitted(.register, email: "hanako@example.jp", password: "short"))) {
      $0.signInFormKind = .register
      $0.signInFormEmail = "hanako@example.jp"
      $0.destination = .register
    }
    await store.receive(.signInForm(.delegate(.refused(.password(.tooShort))))) {
      $0.flash = Flash(.error, "パスワードは8文字以上にしてください。")
      $0.enteredEmail = "hanako@example.jp"
    }
  }

  @Test func loggingInLeavesTheMessageToTheAccountsData() async {
    let store = makeStore { $0.logIn = { email, _ in SignIn(email: email) } }
    await store.send(.signInForm(.submitted(.logIn, email: "hanako@example.jp", password: "correct horse battery"))) {
      $0.signInFormEmail = "hanako@example.jp"
      $0.destination = .login
    }
    await store.receive(\.signInForm.answered.success)
    await store.receive(.signInForm(.delegate(.signedIn(SignIn(email: address))))) {
      $0.identityChange = .signedIn(address)
      $0.destination = .points
    }
  }

  @Test func tooManyFailedLoginsAreRefusedForAWhile() async {
    let store = makeStore { $0.logIn = { _, _ in throw AccountError.throttled } }
    await store.send(.signInForm(.submitted(.logIn, email: "hanako@example.jp", password: "guess"))) {
      $0.signInFormEmail = "hanako@example.jp"
      $0.destination = .login
    }
    await store.receive(.signInForm(.answered(.failure(.throttled))))
    await store.receive(.signInForm(.delegate(.refused(.throttled)))) { $0.destination = .tooManyAttempts }
  }

  @Test func loggingOutMakesANewGuestAndAGuestHasNothingToLogOutOf() async {
    var signedIn = AppFeature.State()
    signedIn.account = address
    let store = makeStore(signedIn)
    await store.send(.logoutButtonTapped) {
      $0.identityChange = .signedOut
      $0.destination = .surveyList
    }
    let everywhere = makeStore(signedIn)
    await everywhere.send(.logoutEverywhereButtonTapped) {
      $0.identityChange = .signedOutEverywhere
      $0.destination = .surveyList
    }
    let guest = makeStore()
    await guest.send(.logoutButtonTapped) { $0.destination = .surveyList }
  }

  @Test func theAccountPageIsTheLoginFormForAGuest() async {
    let guest = makeStore()
    await guest.send(.accountPageRequested) { $0.destination = .login }
    var signedIn = AppFeature.State()
    signedIn.account = address
    let store = makeStore(signedIn)
    await store.send(.accountPageRequested) {
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .account
    }
  }
}
