import Foundation

/// A milestone, unlocked once and dated.
public enum Achievement: String, Codable, CodingKeyRepresentable, CaseIterable, Sendable {
  case firstAnswer, tenAnswers, thousandPoints, sevenDayStreak, firstExchange

  public var title: String {
    switch self {
    case .firstAnswer: "はじめての回答"
    case .tenAnswers: "アンケート10件回答"
    case .thousandPoints: "累計1,000pt獲得"
    case .sevenDayStreak: "7日連続ログイン"
    case .firstExchange: "はじめてのポイント交換"
    }
  }

  public var detail: String {
    switch self {
    case .firstAnswer: "アンケートに初めて回答しました。"
    case .tenAnswers: "アンケートに10件回答しました。"
    case .thousandPoints: "これまでに1,000pt以上獲得しました。"
    case .sevenDayStreak: "7日続けてログインしました。"
    case .firstExchange: "ポイントを初めて交換しました。"
    }
  }

  /// Whether `progress` has reached this milestone.
  func isReached(by progress: UserProgress) -> Bool {
    switch self {
    case .firstAnswer: progress.completedCount >= 1
    case .tenAnswers: progress.completedCount >= 10
    case .thousandPoints: progress.ledger.earnings.value >= 1_000
    case .sevenDayStreak: progress.streak.longest >= 7
    case .firstExchange: progress.exchanges.contains { if case .fulfilled = $0.status { true } else { false } }
    }
  }
}
