import ComposableTesting
import ConcurrencyExtras
import Dependencies
import Foundation
import PointApp
import Testing

struct MissionsTests {
  let clock = LockIsolated(noon)

  func makeStore(progress: UserProgress) -> TestStoreOf<Missions> {
    TestStore(initialState: Missions.State(progress: progress)) {
      Missions()
    } withDependencies: { [clock] in
      $0.date = DateGenerator { clock.value }
      $0.uuid = .incrementing
      $0.calendar = .tokyo
    }
  }

  @Test func showsTodaysMissionsAndStreak() async {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    progress.recordAnswer(to: .breakfast, with: [], id: TransactionID(UUID(50)), at: noon, on: today)
    let store = makeStore(progress: progress)
    await store.send(.pageRequested) { $0.today = today }
    #expect(store.state.missions.map(\.progress) == [1, 1, 1, 40])
    #expect(store.state.missions.map(\.isClaimable) == [true, true, false, false])
    #expect(store.state.streakDays == 1)
  }

  @Test func aCompletedMissionPaysOnceAndThenIsRefused() async {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    let store = makeStore(progress: progress)
    await store.send(.claimButtonTapped(.visit)) {
      $0.today = today
      try $0.progress.claimMission(.visit, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await store.receive(.delegate(.claimed(.visit)))
    #expect(store.state.progress.ledger.balance == 5)

    await store.send(.claimButtonTapped(.visit))
    await store.receive(.delegate(.claimRefused(.missionAlreadyClaimed)))
    #expect(store.state.progress.ledger.balance == 5)
  }

  @Test func anUnfinishedMissionIsRefused() async {
    let store = makeStore(progress: UserProgress())
    await store.send(.claimButtonTapped(.answerThree)) { $0.today = today }
    await store.receive(.delegate(.claimRefused(.missionNotCompleted)))
  }

  @Test func afterMidnightInTokyoTheMissionsStartAgain() async {
    var progress = UserProgress()
    clock.setValue(lastSecondOfTheDay)
    progress.recordVisit(on: today, at: lastSecondOfTheDay)
    let store = makeStore(progress: progress)
    await store.send(.claimButtonTapped(.visit)) {
      $0.today = today
      try $0.progress.claimMission(.visit, id: TransactionID(UUID(0)), at: lastSecondOfTheDay, on: today)
    }
    await store.receive(.delegate(.claimed(.visit)))

    clock.setValue(firstSecondOfNextDay)
    await store.send(.pageRequested) { $0.today = today.next }
    #expect(store.state.missions.allSatisfy { $0.progress == 0 && !$0.isClaimed })
    await store.send(.claimButtonTapped(.visit))
    await store.receive(.delegate(.claimRefused(.missionNotCompleted)))
  }
}
