import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct PointDashboardTests {
  @Test func showsBalanceLatestMovementsAndTheNextGoal() async {
    var ids = 0
    let surveys = (0..<7).map { Survey.fixture(id: "s\($0)", reward: PointAmount($0 * 10 + 10)!) }
    let store = TestStore(initialState: PointDashboard.State(progress: .answered(surveys, ids: &ids))) {
      PointDashboard()
    }
    await store.send(.pageRequested)
    #expect(store.state.balance == 280)
    #expect(store.state.balance.yen == 28)
    #expect(store.state.recentTransactions.map(\.amount) == [70, 60, 50, 40, 30])
    #expect(store.state.nextGoal?.option == ExchangeOption.all[0])
    #expect(store.state.nextGoal?.missing == 2_720)
  }

  @Test func hasNoGoalOnceEveryOptionIsAffordable() {
    var ids = 0
    let state = PointDashboard.State(progress: .answered([.fixture(reward: 10_000)], ids: &ids))
    #expect(state.nextGoal == nil)
  }
}

struct PointHistoryTests {
  func makeStore(transactions count: Int) -> TestStoreOf<PointHistory> {
    var ids = 0
    let surveys = (0..<count).map { Survey.fixture(id: String(format: "s%02d", $0), reward: 1) }
    return TestStore(initialState: PointHistory.State(progress: .answered(surveys, ids: &ids))) {
      PointHistory()
    }
  }

  @Test func movesBetweenPagesNewestFirst() async {
    let store = makeStore(transactions: 45)
    #expect(store.state.page.transactions.first?.reason == .surveyReward(SurveyID("s44")))
    await store.send(.pageRequested(3)) { $0.pageNumber = 3 }
    #expect(store.state.page.transactions.count == 5)
    await store.send(.pageRequested(2)) { $0.pageNumber = 2 }
    #expect(store.state.page.transactions.first?.reason == .surveyReward(SurveyID("s24")))
  }

  @Test func aPagePastEitherEndShowsTheNearestPage() async {
    let store = makeStore(transactions: 45)
    await store.send(.pageRequested(99)) { $0.pageNumber = 3 }
    await store.send(.pageRequested(0)) { $0.pageNumber = 1 }
    await store.send(.pageRequested(-3))
  }

  @Test func anEmptyHistoryHasOnePage() async {
    let store = makeStore(transactions: 0)
    await store.send(.pageRequested(2))
    #expect(store.state.page == LedgerPage(number: 1, pageCount: 1, transactions: []))
  }
}
