import CasePaths
import Composable
import Dependencies
import Foundation

/// Today's missions with their progress and bonuses, the login streak and the achievements.
public struct Missions: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The day the page shows, in the app's calendar.
    public var today: Day?

    public init(progress: UserProgress = UserProgress(), today: Day? = nil) {
      self.progress = progress
      self.today = today
    }

    public var missions: [DailyMission] {
      today.map { progress.missions.missions(on: $0) } ?? []
    }

    public var streakDays: Int {
      today.map { progress.streak.days(asOf: $0) } ?? 0
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
    case claimButtonTapped(DailyMission.Kind)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case claimed(DailyMission.Kind)
      case claimRefused(PointError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.calendar) var calendar

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .pageRequested:
        state.today = Day(now, in: calendar)
        return .none
      case let .claimButtonTapped(kind):
        let now = now  // one reading: the bonus's time and its day agree, even at midnight
        let today = Day(now, in: calendar)
        state.today = today
        do throws(PointError) {
          try state.progress.claimMission(kind, id: TransactionID(uuid()), at: now, on: today)
          return .send(.delegate(.claimed(kind)))
        } catch {
          return .send(.delegate(.claimRefused(error)))
        }
      case .delegate:
        return .none
      }
    }
  }
}
