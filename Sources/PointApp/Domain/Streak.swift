/// Consecutive days with a visit.
public struct Streak: Codable, Equatable, Sendable {
  public private(set) var lastVisit: Day?
  public private(set) var current = 0
  public private(set) var longest = 0

  public init() {}

  /// Counts a visit: the streak grows on the day after the last visit, stays the same on the same
  /// day, and starts again at 1 after a missed day.
  mutating func recordVisit(on today: Day) {
    guard lastVisit != today else { return }
    current = lastVisit?.next == today ? current + 1 : 1
    longest = max(longest, current)
    lastVisit = today
  }

  /// The streak as a user sees it on `today`: broken if yesterday had no visit.
  public func days(asOf today: Day) -> Int {
    guard let lastVisit, lastVisit == today || lastVisit.next == today else { return 0 }
    return current
  }
}
