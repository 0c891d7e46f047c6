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

  @Test func anExpiredOrUnknownSurveyIsNotFoundAndCountsNoVisit() async {
    let store = makeStore()
    await store.send(.surveyOpened(SurveyID("nope"))) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: SurveyID("nope"))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.notFound = true
      $0.destination = .notFound
    }
    await store.send(.surveyOpened(Survey.expired.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.expired.id)
      $0.destination = nil
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.notFound = true
      $0.destination = .notFound
    }
    #expect(store.state.progress == UserProgress(), "a page that does not exist changes nothing")
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

  @Test func answersToASurveyThatIsGoneAreNotFound() async {
    let store = makeStore(visited())
    await store.send(.answersSubmitted(Survey.expired.id, ratingAnswer)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.expired.id, intent: .submit(ratingAnswer))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.notFound = true
      $0.destination = .notFound
    }
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
    await store.send(.exchange(.pageRequested)) { $0.destination = .exchange }
    await store.send(.missions(.pageRequested)) {
      $0.missionsDay = today
      $0.destination = .missions
    }
    #expect(store.state.progress.missions.missions(on: today).first?.isCompleted == true)
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

  @Test func choosingAnExchangeLeadsToItsConfirmation() async {
    let store = makeStore()
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.optionSelected(gift.id))) {
      $0.exchangeConfirmation = .exchange(gift, ledgerCount: 0)
      $0.progress.recordVisit(on: today, at: noon)
      $0.destination = .exchangeConfirmation(gift, .exchange(gift, ledgerCount: 0))
    }
  }

  @Test func anExchangeForAnOptionThatDoesNotExistIsNotFound() async {
    let store = makeStore(visited())
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.ID("nope"), ledgerCount: 0))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.exchangeRefused(.unknownOption)))) { $0.destination = .notFound }
  }

  @Test func aRefusedExchangeLeadsBackToTheExchangeAndSaysWhy() async {
    let store = makeStore(visited())
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 0))) { $0.destination = .exchange }
    await store.receive(.exchange(.delegate(.exchangeRefused(.insufficientBalance)))) {
      $0.flash = Flash(.error, "ポイントが足りません。")
    }
  }

  @Test func aSuccessfulExchangeIsFlashed() async throws {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.fixture(reward: 3_000)], ids: &ids)
    let store = makeStore(state)
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.exchangeButtonTapped(gift.id, ledgerCount: 1))) {
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
      $0.destination = .exchange
    }
    await store.receive(.exchange(.delegate(.exchanged(gift)))) {
      $0.flash = Flash(.success, "デジタルギフト 300円分に交換しました（3,000pt）。")
    }
  }
}
