import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

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

  @Test func aNewUserAnswersASurveyAndClaimsAMission() async throws {
    let store = makeStore()
    await store.send(.surveyList(.pageRequested(category: nil, sort: .newest))) {
      $0.progress.recordVisit(on: today, at: noon)
    }
    await store.receive(\.surveyList.surveysLoaded.success) {
      $0.surveyListPage.surveys = [.sweets, .breakfast]
    }

    await store.send(.surveyOpened(Survey.sweets.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.sweets.id)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) {
      $0.surveyDetailPage?.survey = .sweets
    }

    await store.send(.surveyDetail(.submitButtonTapped(ratingAnswer))) {
      $0.progress.recordAnswer(
        to: .sweets, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))],
        id: TransactionID(UUID(0)), at: noon, on: today
      )
    }
    await store.receive(.surveyDetail(.delegate(.answered(.sweets, paid: true)))) {
      $0.flash = Flash(.success, "「スイーツ調査」に回答しました。60ptを獲得しました！")
    }
    await store.send(.flashShown) { $0.flash = nil }

    await store.send(.missions(.pageRequested)) { $0.missionsDay = today }
    await store.send(.missions(.claimButtonTapped(.answerOne))) {
      try $0.progress.claimMission(.answerOne, id: TransactionID(UUID(1)), at: noon, on: today)
    }
    await store.receive(.missions(.delegate(.claimed(.answerOne)))) {
      $0.flash = Flash(.success, "ミッション達成！ボーナス10ptを受け取りました。")
    }

    #expect(store.state.progress.ledger.balance == 70)
    #expect(store.state.progress.streak.current == 1)
    #expect(store.state.progress.achievements == [.firstAnswer: noon])
  }

  @Test func answeringAgainPaysNothingAndSaysSo() async {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.sweets], ids: &ids)
    state.progress.recordVisit(on: today, at: noon)
    var page = SurveyDetail.Page(surveyID: Survey.sweets.id)
    page.survey = .sweets
    state.surveyDetailPage = page
    let store = makeStore(state)
    await store.send(.surveyDetail(.submitButtonTapped(ratingAnswer)))
    await store.receive(.surveyDetail(.delegate(.answered(.sweets, paid: false)))) {
      $0.flash = Flash(.error, "このアンケートは回答済みです。ポイントは1回だけもらえます。")
    }
    #expect(store.state.progress.ledger.balance == 60)
  }

  @Test func anExpiredOrUnknownSurveyIsNotFound() async {
    let store = makeStore()
    await store.send(.surveyOpened(SurveyID("nope"))) {
      $0.progress.recordVisit(on: today, at: noon)
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: SurveyID("nope"))
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) { $0.surveyDetailPage?.notFound = true }
    await store.send(.surveyOpened(Survey.expired.id)) {
      $0.surveyDetailPage = SurveyDetail.Page(surveyID: Survey.expired.id)
    }
    await store.receive(\.surveyDetail.surveyLoaded.success) { $0.surveyDetailPage?.notFound = true }
  }

  @Test func everyPageCountsAsTheDaysVisitOnce() async {
    let store = makeStore()
    await store.send(.dashboard(.pageRequested)) { $0.progress.recordVisit(on: today, at: noon) }
    await store.send(.history(.pageRequested(1)))
    await store.send(.exchange(.pageRequested))
    #expect(store.state.progress.missions.missions(on: today).first?.isCompleted == true)
  }

  @Test func refusedExchangesAndClaimsAreFlashedAsErrors() async {
    let store = makeStore()
    await store.send(.exchange(.exchangeButtonTapped(ExchangeOption.all[0].id)))
    await store.receive(.exchange(.delegate(.exchangeRefused(.insufficientBalance)))) {
      $0.flash = Flash(.error, "ポイントが足りません。")
    }
    await store.send(.missions(.claimButtonTapped(.answerThree))) { $0.missionsDay = today }
    await store.receive(.missions(.delegate(.claimRefused(.missionNotCompleted)))) {
      $0.flash = Flash(.error, "このミッションはまだ達成していません。")
    }
  }

  @Test func aSuccessfulExchangeIsFlashed() async throws {
    var state = AppFeature.State()
    var ids = 10
    state.progress = .answered([.fixture(reward: 3_000)], ids: &ids)
    let store = makeStore(state)
    let gift = ExchangeOption.all[0]
    await store.send(.exchange(.exchangeButtonTapped(gift.id))) {
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.exchange(.delegate(.exchanged(gift)))) {
      $0.flash = Flash(.success, "デジタルギフト 300円分に交換しました（3,000pt）。")
    }
  }
}

struct SavedStateTests {
  @Test func holdsTheUsersDataOnlyNeverPagesOrCatalog() throws {
    var state = AppFeature.State()
    var ids = 0
    state.progress = .answered([.breakfast], ids: &ids)
    state.surveyListPage.surveys = [.sweets]
    state.flash = Flash(.success, "ok")
    let json = try JSONSerialization.jsonObject(with: state.savedData()) as? [String: Any]
    #expect(Set(json?.keys ?? [:].keys) == ["schemaVersion", "progress", "flash"])
    #expect(!String(decoding: try state.savedData(), as: UTF8.self).contains(Survey.sweets.title))

    let reloaded = try AppFeature.State(savedData: state.savedData())
    #expect(reloaded.progress == state.progress)
    #expect(reloaded.flash == state.flash)
    #expect(reloaded.surveyListPage == SurveyList.Page())
  }

  @Test func sameStateSameBytes() throws {
    var ids = 0
    var state = AppFeature.State()
    state.progress = .answered([.breakfast, .sweets, .travel], ids: &ids)
    #expect(try state.savedData() == AppFeature.State(savedData: state.savedData()).savedData())
  }

  @Test func readsAFileSavedBySchemaVersion1() throws {
    let url = try #require(Bundle.module.url(forResource: "user-state-v1", withExtension: "json", subdirectory: "Fixtures"))
    let state = try AppFeature.State(savedData: Data(contentsOf: url))
    #expect(state.progress.ledger.balance == 45)
    #expect(state.progress.ledger.totalEarned == 45)
    #expect(state.progress.ledger.recent.count == 2)
    #expect(state.progress.answeredCount == 1)
    #expect(state.progress.answered[SurveyID("food-001")]?.answers.count == 3)
    #expect(state.progress.streak.days(asOf: today) == 3)
    #expect(state.progress.missions.missions(on: today).first?.isClaimed == true)
    #expect(state.progress.achievements.keys.contains(.firstAnswer))
    #expect(state.flash?.kind == .success)
  }

  @Test func refusesAFileFromANewerVersion() throws {
    let newer = Data(#"{"schemaVersion": 3, "progress": {}}"#.utf8)
    #expect(throws: DecodingError.self) { try AppFeature.State(savedData: newer) }
    let unversioned = Data(#"{"progress": {}}"#.utf8)
    #expect(throws: DecodingError.self) { try AppFeature.State(savedData: unversioned) }
  }
}
