/// A member's rank, from the points earned in the twelve months (JST) before the current one:
/// decided at the start of each month, it adds a bonus to every survey reward of that month.
public enum MemberRank: Int, CaseIterable, Comparable, Sendable {
  case bronze, silver, gold, platinum

  public var title: String {
    switch self {
    case .bronze: "ブロンズ"
    case .silver: "シルバー"
    case .gold: "ゴールド"
    case .platinum: "プラチナ"
    }
  }

  /// Points earned in the last twelve months that reach it.
  public var threshold: PointAmount {
    switch self {
    case .bronze: 0
    case .silver: 3_000
    case .gold: 10_000
    case .platinum: 30_000
    }
  }

  /// Added to survey rewards, in percent.
  public var bonusPercent: Int {
    switch self {
    case .bronze: 0
    case .silver: 3
    case .gold: 5
    case .platinum: 10
    }
  }

  /// The bonus on a reward: `bonusPercent` of it, rounded down.
  public func bonus(on reward: PointAmount) -> PointAmount {
    PointAmount(reward.value * bonusPercent / 100)!
  }

  public var next: MemberRank? { MemberRank(rawValue: rawValue + 1) }

  /// The rank those points earned reach.
  public init(earned: PointAmount) {
    self = Self.allCases.last { earned >= $0.threshold } ?? .bronze
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension PointLots {
  /// The rank for `month`: from the points earned in the twelve months before it.
  public func rank(in month: Month) -> MemberRank {
    MemberRank(earned: earned(in: (month - 12)...(month - 1)))
  }
}
