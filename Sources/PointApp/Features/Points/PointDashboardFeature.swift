import CasePaths
import Composable
import Dependencies
import Foundation

/// The points page: balance in points and yen, the latest movements, the next reward in reach,
/// the member rank and what the next one needs, and what expires in the next three months.
public struct PointDashboard: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    public var page: Page

    public init(progress: UserProgress = UserProgress(), page: Page = Page()) {
      self.progress = progress
      self.page = page
    }

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

  /// What the page shows of the moment it is asked for: built per request, never saved.
  public struct Page: Equatable, Sendable {
    /// This month's rank.
    public var rank = MemberRank.bronze
    /// Points earned in the twelve months that decide next month's rank (this one's so far included).
    public var earnedForNextMonth = PointAmount.zero
    /// Points that expire at the end of each of the next three months, where there are any.
    public var expiring: [Expiring] = []

    public init(rank: MemberRank = .bronze, earnedForNextMonth: PointAmount = .zero, expiring: [Expiring] = []) {
      self.rank = rank
      self.earnedForNextMonth = earnedForNextMonth
      self.expiring = expiring
    }

    /// Next month's rank as things stand.
    public var nextMonthRank: MemberRank { MemberRank(earned: earnedForNextMonth) }

    /// The rank above next month's, and the points still to earn this month for it.
    public var nextGoal: (rank: MemberRank, missing: PointAmount)? {
      guard let next = nextMonthRank.next else { return nil }
      return (next, next.threshold.subtracting(earnedForNextMonth)!)
    }
  }

  public struct Expiring: Equatable, Sendable {
    /// The month at whose end the points expire.
    public let endOf: Month
    public let amount: PointAmount

    public init(endOf: Month, amount: PointAmount) {
      self.endOf = endOf
      self.amount = amount
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
  }

  @Dependency(\.date.now) var now

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .pageRequested:
        let now = now
        let month = Month(now)
        let lots = state.progress.ledger.lots
        state.page = Page(
          rank: lots.rank(in: month),
          earnedForNextMonth: lots.earned(in: (month - 11)...month),
          expiring: lots.expiring(after: now, months: 3).map { Expiring(endOf: $0.endOf, amount: $0.amount) }
        )
        return .none
      }
    }
  }
}
