import Foundation

/// One movement of points.
public struct PointTransaction: Codable, Equatable, Identifiable, Sendable {
  public let id: TransactionID
  public let date: Date
  public let amount: PointAmount
  public let reason: Reason

  public init(id: TransactionID, date: Date, amount: PointAmount, reason: Reason) {
    self.id = id
    self.date = date
    self.amount = amount
    self.reason = reason
  }

  public enum Reason: Codable, Equatable, Sendable {
    case surveyReward(SurveyID)
    case missionBonus(DailyMission.Kind)
    case exchange(ExchangeOption.ID)

    /// Whether the transaction adds points (rewards, bonuses) or takes them (exchanges).
    public var isCredit: Bool {
      if case .exchange = self { false } else { true }
    }
  }
}

/// Every point movement of a user, oldest first. The balance is derived from it, never stored.
public struct PointLedger: Codable, Equatable, Sendable {
  public private(set) var transactions: [PointTransaction] = []

  public init() {}

  public var balance: PointAmount {
    transactions.reduce(into: PointAmount.zero) { balance, transaction in
      balance = transaction.reason.isCredit
        ? balance.adding(transaction.amount)
        : balance.subtracting(transaction.amount) ?? .zero
    }
  }

  /// Points ever earned (rewards and bonuses), exchanges not deducted.
  public var totalEarned: PointAmount {
    transactions.filter(\.reason.isCredit).reduce(PointAmount.zero) { $0.adding($1.amount) }
  }

  /// Adds points.
  mutating func credit(_ amount: PointAmount, for reason: PointTransaction.Reason, id: TransactionID, at date: Date) {
    precondition(reason.isCredit)
    transactions.append(PointTransaction(id: id, date: date, amount: amount, reason: reason))
  }

  /// Takes points; refuses, changing nothing, when the balance is too small.
  mutating func debit(_ amount: PointAmount, for reason: PointTransaction.Reason, id: TransactionID, at date: Date) throws(PointError) {
    precondition(!reason.isCredit)
    guard balance.subtracting(amount) != nil else { throw .insufficientBalance }
    transactions.append(PointTransaction(id: id, date: date, amount: amount, reason: reason))
  }

  /// One page of the history, newest first. Pages are numbered from 1; a page past either end is
  /// the nearest page that exists.
  public func page(_ number: Int, size: Int = 20) -> LedgerPage {
    let pageCount = max(1, (transactions.count + size - 1) / size)
    let number = min(max(number, 1), pageCount)
    let newestFirst = transactions.reversed().dropFirst((number - 1) * size).prefix(size)
    return LedgerPage(number: number, pageCount: pageCount, transactions: Array(newestFirst))
  }
}

/// A page of the ledger, newest first.
public struct LedgerPage: Equatable, Sendable {
  public let number: Int
  public let pageCount: Int
  public let transactions: [PointTransaction]

  public init(number: Int, pageCount: Int, transactions: [PointTransaction]) {
    self.number = number
    self.pageCount = pageCount
    self.transactions = transactions
  }

  public var hasPrevious: Bool { number > 1 }
  public var hasNext: Bool { number < pageCount }
}

/// Why a point operation was refused.
public enum PointError: Error, Equatable, Sendable {
  case insufficientBalance
  case missionNotCompleted
  case missionAlreadyClaimed
  case unknownOption

  public var message: String {
    switch self {
    case .insufficientBalance: "ポイントが足りません。"
    case .missionNotCompleted: "このミッションはまだ達成していません。"
    case .missionAlreadyClaimed: "このミッションのボーナスは受け取り済みです。"
    case .unknownOption: "その交換先はありません。"
    }
  }
}
