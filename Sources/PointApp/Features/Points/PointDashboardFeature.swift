import CasePaths
import Composable

/// The points page: balance in points and yen, the latest movements, the next reward in reach.
public struct PointDashboard: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress

    public init(progress: UserProgress = UserProgress()) { self.progress = progress }

    public var balance: PointAmount { progress.ledger.balance }

    /// The five latest movements, newest first.
    public var recentTransactions: [PointTransaction] {
      Array(progress.ledger.recent.suffix(5).reversed())
    }

    /// The cheapest exchange the balance does not reach yet, and the points still missing.
    public var nextGoal: (option: ExchangeOption, missing: PointAmount)? {
      ExchangeOption.all.lazy
        .compactMap { option in option.cost.subtracting(self.balance).map { (option, $0) } }
        .first { $0.1 != .zero }
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
  }

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { _, action in
      switch action {
      case .pageRequested: .none
      }
    }
  }
}
