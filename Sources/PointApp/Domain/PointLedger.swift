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
    /// An exchange spent at once (before exchanges were requests): kept for old ledgers.
    case exchange(ExchangeOption.ID)
    /// The profile was filled in for the first time.
    case profileBonus
    /// Thanks for a survey's screening that did not qualify.
    case screeningConsolation(SurveyID)
    /// The points of a month that reached their expiry unspent.
    case expiry(Month)
    /// The member rank's bonus on a survey's reward.
    case rankBonus(SurveyID)
    /// Points held for exchange request `request` (the user's number for it).
    case exchangeHold(request: Int, option: ExchangeOption.ID)
    /// The points of an exchange request that failed, given back.
    case exchangeRefund(request: Int, option: ExchangeOption.ID)
    /// Points added or taken by the support desk, with the reason it gave the user.
    case adjustmentCredit(String)
    case adjustmentDebit(String)

    /// Whether the transaction adds points (rewards, bonuses, refunds) or takes them.
    public var isCredit: Bool {
      switch self {
      case .surveyReward, .missionBonus, .profileBonus, .screeningConsolation, .rankBonus, .exchangeRefund, .adjustmentCredit: true
      case .exchange, .expiry, .exchangeHold, .adjustmentDebit: false
      }
    }

    /// Whether its points count as earned (the rank): rewards and bonuses, not what is given back
    /// or put right.
    public var isEarning: Bool {
      switch self {
      case .surveyReward, .missionBonus, .profileBonus, .screeningConsolation, .rankBonus: true
      case .exchange, .expiry, .exchangeHold, .exchangeRefund, .adjustmentCredit, .adjustmentDebit: false
      }
    }
  }
}

/// Every point movement of a user, oldest first, numbered from 0.
///
/// Its size stays bounded however long the history grows: the totals are kept as running sums,
/// and only the newest movements are held here. Older ones move out in whole segments
/// (`takeArchivable()`) to an archive that only the history page reads.
public struct PointLedger: Codable, Equatable, Sendable {
  /// Points ever credited (rewards, bonuses, refunds, adjustments), nothing deducted.
  public private(set) var totalEarned = PointAmount.zero
  /// Points ever debited (exchanges, expiries, adjustments).
  public private(set) var totalSpent = PointAmount.zero
  /// Points ever earned: rewards and bonuses, not what was given back or put right (累計獲得).
  public private(set) var earnings = PointAmount.zero
  /// The balance by the month its points were earned in: what expires when (`PointLots`).
  public private(set) var lots = PointLots()
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

  /// Adds a movement as it is and counts it in the totals and the lots. Unchecked: `credit` and
  /// `debit` check new movements; a merge adds a guest's through it, whose points were already
  /// earned or spent.
  mutating func append(_ transaction: PointTransaction) {
    recent.append(transaction)
    count(transaction)
  }

  private mutating func count(_ transaction: PointTransaction) {
    if transaction.reason.isCredit {
      totalEarned = totalEarned.adding(transaction.amount)
      if transaction.reason.isEarning { earnings = earnings.adding(transaction.amount) }
      lots.credit(transaction.amount, in: Month(transaction.date), earned: transaction.reason.isEarning)
    } else {
      totalSpent = totalSpent.adding(transaction.amount)
      if case let .expiry(month) = transaction.reason {
        lots.take(transaction.amount, from: month)
      } else {
        lots.spend(transaction.amount)
      }
    }
  }

  /// The balance at `date`: points that have expired by then are not counted, even before their
  /// expiry is written (`expire(at:ids:)`).
  public func balance(at date: Date) -> PointAmount {
    balance.subtracting(lots.expired(at: date).reduce(.zero) { $0.adding($1.remaining) }) ?? .zero
  }

  /// Writes off the points that have expired by `date`: one movement per month, dated when its
  /// points expired. Nothing happens for a month already written off.
  mutating func expire(at date: Date, id: () -> TransactionID) -> [PointTransaction] {
    lots.expired(at: date).map { lot in
      let movement = PointTransaction(id: id(), date: lot.month.pointsExpireAt, amount: lot.remaining, reason: .expiry(lot.month))
      append(movement)
      return movement
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
  public func pageSpan(_ number: Int, size: Int = 20) -> PageSpan {
    PageSpan(page: number, of: count, size: size)
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

/// Which items a history page shows, newest first: movements of the ledger, exchange requests.
public struct PageSpan: Equatable, Sendable {
  public let number: Int
  public let pageCount: Int
  /// Item numbers counted from 0, oldest first; the page shows them newest first.
  public let numbers: Range<Int>

  public init(number: Int, pageCount: Int, numbers: Range<Int>) {
    self.number = number
    self.pageCount = pageCount
    self.numbers = numbers
  }

  /// Page `number` (from 1) of `count` items, `size` a page; a page past either end is the
  /// nearest page that exists.
  public init(page number: Int, of count: Int, size: Int) {
    let pageCount = max(1, (count + size - 1) / size)
    let number = min(max(number, 1), pageCount)
    let upper = count - (number - 1) * size
    self.init(number: number, pageCount: pageCount, numbers: max(0, upper - size)..<upper)
  }

  /// Where the archive segments of `size` items that hold this page's archived numbers (those
  /// below `archived`) start: none for a page held whole.
  public func segmentStarts(archived: Int, size: Int) -> [Int] {
    Array(stride(from: numbers.lowerBound / size * size, to: min(numbers.upperBound, archived), by: size))
  }

  /// The page's items newest first, from its archived and held items (each oldest first); `nil`
  /// when they are not all of its numbers (an archive that holds less than it should).
  public func items<Item>(archived: [Item], held: [Item]) -> [Item]? {
    archived.count + held.count == numbers.count ? (archived + held).reversed() : nil
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
  /// An exchange was requested today already.
  case dailyLimit
  /// The month's exchanges would pass `ExchangeLimits.monthlyPoints`.
  case monthlyLimit
  /// The provider cannot deliver the option now (its list of products says so).
  case optionUnavailable

  public var message: String {
    switch self {
    case .insufficientBalance: "ポイントが足りません。"
    case .missionNotCompleted: "このミッションはまだ達成していません。"
    case .missionAlreadyClaimed: "このミッションのボーナスは受け取り済みです。"
    case .unknownOption: "その交換先はありません。"
    case .staleConfirmation: "ポイントの残高が変わったため、交換しませんでした。内容を確認して、もう一度お試しください。"
    case .dailyLimit: "ポイント交換の申請は1日1回までです。明日またお試しください。"
    case .monthlyLimit: "ポイント交換は1か月に\(ExchangeLimits.monthlyPoints)までです。来月またお試しください。"
    case .optionUnavailable: "この交換先は、ただいまお取り扱いを休止しています。ほかの交換先を選ぶか、しばらくしてからお試しください。"
    }
  }
}

extension PointLedger {
  private enum CodingKeys: String, CodingKey {
    case totalEarned, totalSpent, archivedCount, recent, lots, earnings
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
    // Before there were refunds and adjustments, every credit was earned.
    earnings = try container.decodeIfPresent(PointAmount.self, forKey: .earnings) ?? totalEarned
    archivedCount = try container.decode(Int.self, forKey: .archivedCount)
    guard archivedCount >= 0, archivedCount % Self.segmentSize == 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .archivedCount, in: container, debugDescription: "not a whole number of segments: \(archivedCount)"
      )
    }
    recent = try container.decode([PointTransaction].self, forKey: .recent)
    lots = try container.decodeIfPresent(PointLots.self, forKey: .lots)
      ?? Self.lots(balance: balance, owed: totalSpent.subtracting(totalEarned) ?? .zero, recent: recent)
  }

  /// The lots of a ledger saved before there were lots (schema version 3 and older): the balance
  /// is put in the months of its newest credits, as far as they reach, and the rest in the month
  /// of the oldest movement held (the archive is not read for it).
  static func lots(balance: PointAmount, owed: PointAmount, recent: [PointTransaction]) -> PointLots {
    var earned: [Month: PointAmount] = [:]
    var remaining: [Month: PointAmount] = [:]
    for movement in recent where movement.reason.isEarning {
      earned[Month(movement.date), default: .zero] = earned[Month(movement.date), default: .zero].adding(movement.amount)
    }
    var left = balance
    for movement in recent.reversed() where movement.reason.isCredit && left > .zero {
      let amount = min(left, movement.amount)
      remaining[Month(movement.date), default: .zero] = remaining[Month(movement.date), default: .zero].adding(amount)
      left = left.subtracting(amount)!
    }
    if left > .zero, let oldest = recent.first {
      remaining[Month(oldest.date), default: .zero] = remaining[Month(oldest.date), default: .zero].adding(left)
    }
    let months = Set(earned.keys).union(remaining.keys)
    return PointLots(
      lots: months.map { PointLots.Lot(month: $0, earned: earned[$0] ?? .zero, remaining: remaining[$0] ?? .zero) }, owed: owed
    )
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(totalEarned, forKey: .totalEarned)
    try container.encode(totalSpent, forKey: .totalSpent)
    try container.encode(archivedCount, forKey: .archivedCount)
    try container.encode(earnings, forKey: .earnings)
    try container.encode(recent, forKey: .recent)
    try container.encode(lots, forKey: .lots)
  }
}
