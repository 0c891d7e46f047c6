import ComposableTesting
import Dependencies
import PointApp
import Testing

struct SurveyListTests {
  let catalog = [Survey.breakfast, .sweets, .travel, .expired]

  func makeStore(progress: UserProgress = UserProgress()) -> TestStoreOf<SurveyList> {
    TestStore(initialState: SurveyList.State(progress: progress)) {
      SurveyList()
    } withDependencies: {
      $0.surveyClient = .catalog(catalog)
      $0.date.now = noon
    }
  }

  @Test func showsOpenSurveysNewestFirst() async {
    let store = makeStore()
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
    }
  }

  @Test func filtersByCategoryAndSortsByReward() async {
    let store = makeStore()
    await store.send(.pageRequested(category: .food, sort: .reward)) {
      $0.page.category = .food
      $0.page.sort = .reward
    }
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast]
    }
  }

  @Test func sortsByPointsPerMinute() async {
    let store = makeStore()
    await store.send(.pageRequested(category: nil, sort: .efficiency)) { $0.page.sort = .efficiency }
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.travel, .breakfast, .sweets]
    }
  }

  @Test func marksAnsweredSurveys() async {
    var ids = 0
    let store = makeStore(progress: .answered([.sweets], ids: &ids))
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
    }
    #expect(store.state.page.surveys.map(store.state.isAnswered) == [true, false, false])
  }

  @Test func aCatalogFailureIsShownAndARetryClearsIt() async {
    struct Down: Error {}
    let store = TestStore(initialState: SurveyList.State()) {
      SurveyList()
    } withDependencies: {
      $0.surveyClient.fetchAll = { throw Down() }
      $0.date.now = noon
    }
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(.surveysLoaded(.failure(CatalogError(Down())))) { $0.page.loadFailed = true }

    store.dependencies.surveyClient = .catalog(catalog)
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
      $0.page.loadFailed = false
    }
  }
}
