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
    /// The profile was filled in for the first time.
    case profileBonus
    /// Thanks for a survey's screening that did not qualify.
    case screeningConsolation(SurveyID)

    /// Whether the transaction adds points (rewards, bonuses) or takes them (exchanges).
    public var isCredit: Bool {
      if case .exchange = self { false } else { true }
    }
  }
}

/// Every point movement of a user, oldest first, numbered from 0.
///
/// Its size stays bounded however long the history grows: the totals are kept as running sums,
/// and only the newest movements are held here. Older ones move out in whole segments
/// (`takeArchivable()`) to an archive that only the history page reads.
public struct PointLedger: Codable, Equatable, Sendable {
  /// Points ever earned (rewards and bonuses), exchanges not deducted.
  public private(set) var totalEarned = PointAmount.zero
  /// Points ever exchanged.
  public private(set) var totalSpent = PointAmount.zero
  /// How many of the oldest movements are in the archive (numbers `0..<archivedCount`).
  public private(set) var archivedCount = 0
  /// The newest movements, oldest first (numbers `archivedCount..<count`).
  public private(set) var recent: [PointTransaction] = []

  /// Movements per archive segment; segment `k` holds numbers `k*size ..< (k+1)*size`.
  public static let segmentSize = 20
  /// Movements that always stay here: the points page shows them.
  public static let keptRecent = 5

  public init() {}

  /// Never negative: a debit that would overdraw is refused. Only merging a guest can leave more
  /// spent than earned (`UserProgress.absorb`); the balance is then zero until later earnings
  /// have made up the difference.
  public var balance: PointAmount { totalEarned.subtracting(totalSpent) ?? .zero }

  /// How many movements there have ever been.
  public var count: Int { archivedCount + recent.count }

  /// Adds points.
  mutating func credit(_ amount: PointAmount, for reason: PointTransaction.Reason, id: TransactionID, at date: Date) {
    precondition(reason.isCredit)
    append(PointTransaction(id: id, date: date, amount: amount, reason: reason))
  }

  /// Takes points; refuses, changing nothing, when the balance is too small.
  mutating func debit(_ amount: PointAmount, for reason: PointTransaction.Reason, id: TransactionID, at date: Date) throws(PointError) {
    precondition(!reason.isCredit)
    guard balance.subtracting(amount) != nil else { throw .insufficientBalance }
    append(PointTransaction(id: id, date: date, amount: amount, reason: reason))
  }

  /// Adds a movement as it is and counts it in the totals. Unchecked: `credit` and `debit` check
  /// new movements; a merge adds a guest's through it, whose points were already earned or spent.
  mutating func append(_ transaction: PointTransaction) {
    recent.append(transaction)
    if transaction.reason.isCredit {
      totalEarned = totalEarned.adding(transaction.amount)
    } else {
      totalSpent = totalSpent.adding(transaction.amount)
    }
  }

  /// Removes and returns the oldest whole segments, keeping at least `keptRecent` movements here.
  /// The caller stores them (durably) before it stores the ledger without them. Storing a segment
  /// again after a crash writes the same movements under the same number.
  public mutating func takeArchivable() -> [LedgerSegment] {
    var segments: [LedgerSegment] = []
    while recent.count - Self.segmentSize >= Self.keptRecent {
      precondition(archivedCount % Self.segmentSize == 0, "segments start on a multiple of segmentSize")
      segments.append(LedgerSegment(start: archivedCount, transactions: Array(recent.prefix(Self.segmentSize))))
      recent.removeFirst(Self.segmentSize)
      archivedCount += Self.segmentSize
    }
    return segments
  }

  /// Where page `number` of the history lies, newest first. Pages are numbered from 1; a page past
  /// either end is the nearest page that exists.
  public func pageSpan(_ number: Int, size: Int = 20) -> LedgerPageSpan {
    let pageCount = max(1, (count + size - 1) / size)
    let number = min(max(number, 1), pageCount)
    let upper = count - (number - 1) * size
    return LedgerPageSpan(number: number, pageCount: pageCount, numbers: max(0, upper - size)..<upper)
  }

  /// The movements numbered `numbers` that are held here (not archived), oldest first.
  public func held(_ numbers: Range<Int>) -> [PointTransaction] {
    let lower = max(numbers.lowerBound, archivedCount)
    guard lower < numbers.upperBound else { return [] }
    return Array(recent[(lower - archivedCount)..<(numbers.upperBound - archivedCount)])
  }
}

/// Archived movements: numbers `start ..< start + transactions.count`, oldest first.
public struct LedgerSegment: Codable, Equatable, Sendable {
  public let start: Int
  public let transactions: [PointTransaction]

  public init(start: Int, transactions: [PointTransaction]) {
    self.start = start
    self.transactions = transactions
  }
}

/// Which movements a history page shows.
public struct LedgerPageSpan: Equatable, Sendable {
  public let number: Int
  public let pageCount: Int
  /// Movement numbers, oldest first; the page shows them newest first.
  public let numbers: Range<Int>

  public init(number: Int, pageCount: Int, numbers: Range<Int>) {
    self.number = number
    self.pageCount = pageCount
    self.numbers = numbers
  }
}

/// Why a point operation was refused.
public enum PointError: Error, Equatable, Sendable {
  case insufficientBalance
  case missionNotCompleted
  case missionAlreadyClaimed
  case unknownOption
  /// The confirmation was shown before the ledger last moved (a form sent again from Back, or
  /// from another tab): nothing is spent on what the user saw then.
  case staleConfirmation

  public var message: String {
    switch self {
    case .insufficientBalance: "ポイントが足りません。"
    case .missionNotCompleted: "このミッションはまだ達成していません。"
    case .missionAlreadyClaimed: "このミッションのボーナスは受け取り済みです。"
    case .unknownOption: "その交換先はありません。"
    case .staleConfirmation: "ポイントの残高が変わったため、交換しませんでした。内容を確認して、もう一度お試しください。"
    }
  }
}

extension PointLedger {
  private enum CodingKeys: String, CodingKey {
    case totalEarned, totalSpent, archivedCount, recent
    /// Schema version 1 kept the whole ledger here.
    case transactions
  }

  /// Reads this version's shape, or a version-1 ledger (every movement, no totals), whose totals
  /// are folded from its movements; it is archived at its next save.
  public init(from decoder: any Decoder) throws {
    self.init()
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let all = try container.decodeIfPresent([PointTransaction].self, forKey: .transactions) {
      for transaction in all { append(transaction) }
      return
    }
    totalEarned = try container.decode(PointAmount.self, forKey: .totalEarned)
    totalSpent = try container.decode(PointAmount.self, forKey: .totalSpent)
    archivedCount = try container.decode(Int.self, forKey: .archivedCount)
    guard archivedCount >= 0, archivedCount % Self.segmentSize == 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .archivedCount, in: container, debugDescription: "not a whole number of segments: \(archivedCount)"
      )
    }
    recent = try container.decode([PointTransaction].self, forKey: .recent)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(totalEarned, forKey: .totalEarned)
    try container.encode(totalSpent, forKey: .totalSpent)
    try container.encode(archivedCount, forKey: .archivedCount)
    try container.encode(recent, forKey: .recent)
  }
}
