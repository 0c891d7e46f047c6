import ComposableTesting
import Dependencies
import Foundation
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

  /// A targeted survey is listed only for the users it is for; a user without a profile is invited
  /// to fill one.
  @Test func surveysOutsideTheTargetAreHiddenAndAProfileIsAskedFor() async {
    let catalog = [Survey.breakfast, .twenties]
    func store(_ profile: Profile?) -> TestStoreOf<SurveyList> {
      var progress = UserProgress()
      if let profile { progress.saveProfile(profile, id: TransactionID(UUID(9)), at: noon - 60) }
      return TestStore(initialState: SurveyList.State(progress: progress)) {
        SurveyList()
      } withDependencies: {
        $0.surveyClient = .catalog(catalog)
        $0.date.now = noon
      }
    }
    let guest = store(nil)
    await guest.send(.pageRequested(category: nil, sort: .newest))
    await guest.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.breakfast]
      $0.page.surveysNeedProfile = true
    }
    let hanako = store(.hanako)
    await hanako.send(.pageRequested(category: nil, sort: .newest))
    await hanako.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.twenties, .breakfast]
      $0.page.newSurveys = [Survey.twenties.id]  // published two days ago: 新着
    }
    let taro = store(Profile(birthYear: 2000, gender: .male, prefecture: .tokyo, occupation: .student))
    await taro.send(.pageRequested(category: nil, sort: .newest))
    await taro.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.breakfast]
    }
  }

  @Test func showsOpenSurveysNewestFirst() async {
    let store = makeStore()
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
      $0.page.closedSurveys = [.expired]  // a day past its deadline: 受付終了
      $0.page.newSurveys = [Survey.sweets.id]
    }
  }

  /// A catalog handed in with the state (as the web layer reads it before the store runs) makes
  /// the list in the action's own step: no effect, no catalog fetched.
  @Test func aCatalogHandedInIsListedAtOnce() async {
    var state = SurveyList.State()
    state.page.catalog = catalog
    let store = TestStore(initialState: state) {
      SurveyList()
    } withDependencies: {
      $0.date.now = noon  // the survey client left unimplemented: reaching it fails the test
    }
    await store.send(.pageRequested(category: nil, sort: .newest)) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
      $0.page.closedSurveys = [.expired]
      $0.page.newSurveys = [Survey.sweets.id]
    }
    await store.send(.pageRequested(category: .food, sort: .reward)) {
      $0.page.category = .food
      $0.page.sort = .reward
      $0.page.surveys = [.sweets, .breakfast]
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
      $0.page.closedSurveys = [.expired]
      $0.page.newSurveys = [Survey.sweets.id]
    }
  }

  @Test func sortsByPointsPerMinute() async {
    let store = makeStore()
    await store.send(.pageRequested(category: nil, sort: .efficiency)) { $0.page.sort = .efficiency }
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.travel, .breakfast, .sweets]
      $0.page.closedSurveys = [.expired]
      $0.page.newSurveys = [Survey.sweets.id]
    }
  }

  @Test func marksAnsweredSurveys() async {
    var ids = 0
    let store = makeStore(progress: .answered([.sweets], ids: &ids))
    await store.send(.pageRequested(category: nil, sort: .newest))
    await store.receive(\.surveysLoaded.success) {
      $0.page.surveys = [.sweets, .breakfast, .travel]
      $0.page.closedSurveys = [.expired]
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
      $0.page.closedSurveys = [.expired]
      $0.page.loadFailed = false
      $0.page.newSurveys = [Survey.sweets.id]
    }
  }
}
