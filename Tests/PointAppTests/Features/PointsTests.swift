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
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.pageRequested) {
      $0.page = PointDashboard.Page(rank: .bronze, earnedForNextMonth: 280, expiring: [])
    }
    #expect(store.state.balance == 280)
    #expect(store.state.balance.yen == 28)
    #expect(store.state.recentTransactions.map(\.amount) == [70, 60, 50, 40, 30])
    #expect(store.state.nextGoal?.option == ExchangeOption.all[0])
    #expect(store.state.nextGoal?.missing == 2_720)
    #expect(store.state.page.nextGoal! == (.silver, 2_720))
  }

  @Test func showsTheRankWhatTheNextNeedsAndWhatExpiresSoon() async {
    // 4,000 pt earned in January 2026, 500 in March: on 2027-01-15 the rank is silver, January's
    // points expire at the end of this month and March's at the end of March.
    var progress = UserProgress()
    progress.recordAnswer(to: .fixture(id: "jan", reward: 4_000), with: [], id: TransactionID(UUID(1)), at: jst(2026, 1, 10), on: today)
    progress.recordAnswer(
      to: .fixture(id: "mar", reward: 500), with: [], id: TransactionID(UUID(2)), at: jst(2026, 3, 10), on: today,
      bonusID: { TransactionID(UUID(3)) }
    )
    let store = TestStore(initialState: PointDashboard.State(progress: progress)) {
      PointDashboard()
    } withDependencies: {
      $0.date.now = jst(2027, 1, 15)
    }
    await store.send(.pageRequested) {
      $0.page = PointDashboard.Page(
        rank: .silver, earnedForNextMonth: 515,
        expiring: [.init(endOf: Month(year: 2027, month: 1), amount: 4_000), .init(endOf: Month(year: 2027, month: 3), amount: 515)]
      )
    }
    #expect(store.state.page.nextMonthRank == .bronze, "January 2026's earnings leave the window")
    #expect(store.state.page.nextGoal! == (.silver, 2_485))
  }

  @Test func hasNoGoalOnceEveryOptionIsAffordable() {
    var ids = 0
    let state = PointDashboard.State(progress: .answered([.fixture(reward: 10_000)], ids: &ids))
    #expect(state.nextGoal == nil)
  }
}

struct PointHistoryTests {
  /// A user with `count` one-point rewards (s000, s001, …), their history archived as the server
  /// would before saving (or not yet, as just after reading a version-1 file); the archived
  /// segments are returned by their first number.
  func history(_ count: Int, archived: Bool = true) -> (progress: UserProgress, archive: [Int: LedgerSegment]) {
    var ids = 0
    var progress = UserProgress.answered((0..<count).map { Survey.fixture(id: String(format: "s%03d", $0), reward: 1) }, ids: &ids)
    let segments = archived ? progress.takeArchivable().segments : []
    return (progress, Dictionary(uniqueKeysWithValues: segments.map { ($0.start, $0) }))
  }

  func rewards(_ numbers: some Sequence<Int>) -> [PointTransaction.Reason] {
    numbers.map { .surveyReward(SurveyID(String(format: "s%03d", $0))) }
  }

  @Test func movesBetweenPagesNewestFirst() async {
    let (progress, _) = history(45, archived: false)
    let store = TestStore(initialState: PointHistory.State(progress: progress)) { PointHistory() }
    await store.send(.pageRequested(1)) {
      $0.page = PointHistory.Page(number: 1, pageCount: 3, transactions: progress.ledger.held(25..<45).reversed())
    }
    #expect(store.state.page.transactions.map(\.reason) == rewards((25..<45).reversed()))
    await store.send(.pageRequested(3)) {
      $0.page = PointHistory.Page(number: 3, pageCount: 3, transactions: progress.ledger.held(0..<5).reversed())
    }
    #expect(store.state.page.hasPrevious && !store.state.page.hasNext)
  }

  @Test func aPagePastEitherEndShowsTheNearestPage() async {
    let (progress, _) = history(45, archived: false)
    let store = TestStore(initialState: PointHistory.State(progress: progress)) { PointHistory() }
    let last = PointHistory.Page(number: 3, pageCount: 3, transactions: progress.ledger.held(0..<5).reversed())
    await store.send(.pageRequested(99)) { $0.page = last }
    await store.send(.pageRequested(0)) {
      $0.page = PointHistory.Page(number: 1, pageCount: 3, transactions: progress.ledger.held(25..<45).reversed())
    }
    await store.send(.pageRequested(-3))
  }

  @Test func anEmptyHistoryHasOnePage() async {
    let store = TestStore(initialState: PointHistory.State()) { PointHistory() }
    await store.send(.pageRequested(2))
    #expect(store.state.page == PointHistory.Page(number: 1, pageCount: 1, transactions: []))
  }

  @Test func anOldPageIsReadFromTheArchiveOnly() async {
    let (progress, archive) = history(175)
    #expect(progress.ledger.archivedCount == 160)
    let store = TestStore(initialState: PointHistory.State(progress: progress)) {
      PointHistory()
    } withDependencies: {
      $0.ledgerArchive.segment = { start in try #require(archive[start]) }
    }
    // Page 1 is movements 155..<175: the end of segment 140 and the fifteen still held.
    await store.send(.pageRequested(1)) { $0.page = PointHistory.Page(number: 1, pageCount: 9) }
    await store.receive(.archiveLoaded(.success([archive[140]!]))) {
      $0.page.transactions = (archive[140]!.transactions.suffix(5) + progress.ledger.held(160..<175)).reversed()
    }
    #expect(store.state.page.transactions.map(\.reason) == rewards((155..<175).reversed()))
    // Page 8 is movements 15..<35: parts of two segments.
    await store.send(.pageRequested(8)) { $0.page = PointHistory.Page(number: 8, pageCount: 9) }
    await store.receive(.archiveLoaded(.success([archive[0]!, archive[20]!]))) {
      $0.page.transactions = (archive[0]!.transactions.suffix(5) + archive[20]!.transactions.prefix(15)).reversed()
    }
    #expect(store.state.page.transactions.map(\.reason) == rewards((15..<35).reversed()))
  }

  @Test func aPageOfMovementsStillHeldNeedsNoArchive() async {
    let (progress, _) = history(180)
    #expect(progress.ledger.archivedCount == 160)
    let store = TestStore(initialState: PointHistory.State(progress: progress)) { PointHistory() }
    await store.send(.pageRequested(1)) {
      $0.page = PointHistory.Page(number: 1, pageCount: 9, transactions: progress.ledger.held(160..<180).reversed())
    }
  }

  @Test func anUnreadableArchiveIsSaidNotSkipped() async {
    let (progress, archive) = history(175)
    let failing = TestStore(initialState: PointHistory.State(progress: progress)) {
      PointHistory()
    } withDependencies: {
      $0.ledgerArchive.segment = { _ in throw LedgerArchiveError(reason: "disk") }
    }
    await failing.send(.pageRequested(9)) { $0.page = PointHistory.Page(number: 9, pageCount: 9) }
    await failing.receive(.archiveLoaded(.failure(LedgerArchiveError(reason: "disk")))) { $0.page.archiveFailed = true }

    let wrong = TestStore(initialState: PointHistory.State(progress: progress)) {
      PointHistory()
    } withDependencies: {
      $0.ledgerArchive.segment = { _ in archive[60]! }
    }
    await wrong.send(.pageRequested(9)) { $0.page = PointHistory.Page(number: 9, pageCount: 9) }
    await wrong.receive(.archiveLoaded(.success([archive[60]!]))) { $0.page.archiveFailed = true }
  }
}
