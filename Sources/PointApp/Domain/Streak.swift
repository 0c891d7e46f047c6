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

  /// Adds another record of the same person's visits (a guest's). Each record's current run ends
  /// on its last visit; runs that overlap or touch (the guest visited today, the account up to
  /// yesterday) are one run, from the earlier start to the later last visit. Otherwise the run
  /// ending on the later last visit is the current one. On the same last day this keeps the
  /// larger `current`. The longest is the longest of the two and of the joined run; runs before
  /// the current ones cannot be joined, since neither record keeps their days.
  mutating func merge(_ other: Streak) {
    guard let otherLast = other.lastVisit else { return }
    guard let last = lastVisit else { self = other; return }
    let runs = [
      (start: last.ordinal - current + 1, end: last),
      (start: otherLast.ordinal - other.current + 1, end: otherLast),
    ].sorted { $0.end < $1.end }
    let (earlier, later) = (runs[0], runs[1])
    let joined = later.start <= earlier.end.ordinal + 1
    current = later.end.ordinal - (joined ? min(earlier.start, later.start) : later.start) + 1
    lastVisit = later.end
    longest = max(longest, other.longest, current)
  }

  /// The streak as a user sees it on `today`: broken if yesterday had no visit.
  public func days(asOf today: Day) -> Int {
    guard let lastVisit, lastVisit == today || lastVisit.next == today else { return 0 }
    return current
  }
}
