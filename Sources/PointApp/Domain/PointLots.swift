import Foundation

extension Month {
  /// Points earned in this month expire at the end of the same month twelve months later: this
  /// instant (00:00 JST on the first of the month after that).
  public var pointsExpireAt: Date { (self + 13).start }

  /// `2027年3月末`: when this month's points expire, as the points page says it.
  public var expiryLabel: String { "\((self + 12).label)末" }
}

/// A user's points by the month (JST) they were earned in: what expires when, and what was earned
/// when (the rank). One lot per month, never per movement, so that its size stays bounded: only
/// the months of the last year, and older ones still holding points not yet written off, are kept.
///
/// It follows the ledger movement by movement (`PointLedger` keeps it in step): a credit adds to
/// its month's lot, an expiry takes its month's lot, every other debit takes the oldest points
/// first.
public struct PointLots: Equatable, Sendable {
  public struct Lot: Codable, Equatable, Sendable {
    public let month: Month
    /// Points earned in the month (rewards and bonuses; not refunds or adjustments): the rank.
    public fileprivate(set) var earned: PointAmount
    /// Of the points added in the month, those not spent or expired yet.
    public fileprivate(set) var remaining: PointAmount

    public init(month: Month, earned: PointAmount, remaining: PointAmount) {
      self.month = month
      self.earned = earned
      self.remaining = remaining
    }
  }

  /// Oldest first, one per month.
  public private(set) var lots: [Lot] = []
  /// Points spent beyond every lot: only a merged guest's exchange of a reward dropped as a
  /// duplicate does that (`UserProgress.absorb`). Later credits pay it off before they count.
  public private(set) var owed = PointAmount.zero

  public init() {}

  public init(lots: [Lot], owed: PointAmount = .zero) {
    self.lots = lots.sorted { $0.month < $1.month }
    self.owed = owed
  }

  /// Points held: the sum of the lots.
  public var remaining: PointAmount { lots.reduce(.zero) { $0.adding($1.remaining) } }

  /// Adds points to `month`'s lot, counted as earned when they are (rewards and bonuses). Lots of
  /// more than a year before it that hold nothing are dropped: nothing needs them any more.
  public mutating func credit(_ amount: PointAmount, in month: Month, earned: Bool) {
    var amount = amount
    let paid = min(owed, amount)
    owed = owed.subtracting(paid)!
    amount = amount.subtracting(paid)!
    let index: Int
    if let found = lots.firstIndex(where: { $0.month == month }) {
      index = found
    } else {
      index = lots.firstIndex(where: { $0.month > month }) ?? lots.endIndex
      lots.insert(Lot(month: month, earned: .zero, remaining: .zero), at: index)
    }
    lots[index].remaining = lots[index].remaining.adding(amount)
    if earned { lots[index].earned = lots[index].earned.adding(amount.adding(paid)) }
    lots.removeAll { $0.remaining == .zero && $0.month < month - 12 }
  }

  /// Takes points, the oldest first; what no lot holds is owed.
  public mutating func spend(_ amount: PointAmount) {
    var left = amount
    for index in lots.indices where left > .zero {
      let taken = min(left, lots[index].remaining)
      lots[index].remaining = lots[index].remaining.subtracting(taken)!
      left = left.subtracting(taken)!
    }
    owed = owed.adding(left)
  }

  /// Takes `amount` from `month`'s lot (its expiry), and anything it does not hold the oldest first.
  public mutating func take(_ amount: PointAmount, from month: Month) {
    var left = amount
    if let index = lots.firstIndex(where: { $0.month == month }) {
      let taken = min(left, lots[index].remaining)
      lots[index].remaining = lots[index].remaining.subtracting(taken)!
      left = left.subtracting(taken)!
    }
    if left > .zero { spend(left) }
  }

  /// The lots whose points have expired by `date` and still hold some, oldest first.
  public func expired(at date: Date) -> [Lot] {
    lots.filter { $0.remaining > .zero && $0.month.pointsExpireAt <= date }
  }

  /// Points that expire in each of the `count` months from `date`'s on (those whose end comes
  /// next), with the month they expire at the end of; months with nothing are left out.
  public func expiring(after date: Date, months count: Int) -> [(endOf: Month, amount: PointAmount)] {
    let now = Month(date)
    return (0..<count).compactMap { offset in
      let earnedIn = now + offset - 12
      guard let lot = lots.first(where: { $0.month == earnedIn }), lot.remaining > .zero else { return nil }
      return (now + offset, lot.remaining)
    }
  }

  /// Points earned in `months` (rewards and bonuses).
  public func earned(in months: ClosedRange<Month>) -> PointAmount {
    lots.filter { months.contains($0.month) }.reduce(.zero) { $0.adding($1.earned) }
  }
}

extension PointLots: Codable {
  private enum CodingKeys: String, CodingKey { case lots, owed }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      lots: try container.decode([Lot].self, forKey: .lots),
      owed: try container.decodeIfPresent(PointAmount.self, forKey: .owed) ?? .zero
    )
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(lots, forKey: .lots)
    if owed > .zero { try container.encode(owed, forKey: .owed) }
  }
}
