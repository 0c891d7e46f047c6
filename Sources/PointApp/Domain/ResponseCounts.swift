import Foundation

/// A survey's responses counted as they are recorded, for its dashboard: by outcome, reviews
/// asked for, answering times, completes per day and the picks of each choice question. Kept
/// beside the responses and moved on with each, so that a dashboard reads one small record
/// instead of every response. Numbers by name only: the store keeps the counts it writes as they
/// were written (`SavedExactly`), so whatever is added must read back from JSON unchanged (no
/// dates, whose fractions of a second the JSON drops).
public struct ResponseCounts: Codable, Equatable, Sendable {
  public var byOutcome: [SurveyResponse.Outcome: Int] = [:]
  /// Responses whose answers had been sent back once for review.
  public var reviewed = 0
  /// Completes by the seconds they took from their questions shown to sent.
  public var seconds: [Int: Int] = [:]
  /// Completes by their day in Tokyo (`2026-11-22`).
  public var completesByDay: [String: Int] = [:]
  /// Of completes, the picks of each choice question (grid rows as `<question>/<row>`).
  public var picks: [String: [String: Int]] = [:]
  /// Responses by the survey's version they answered; absent in counts kept before they were
  /// counted so (every version is then taken as answered).
  public var byVersion: [Int: Int]?

  public init() {}

  public var completes: Int { byOutcome[.completed] ?? 0 }

  /// The versions some response answered, of those up to `latest`; every one of them where the
  /// counts do not say.
  public func versionsAnswered(upTo latest: Int) -> [Int] {
    guard let byVersion else { return Array(1...max(1, latest)) }
    return byVersion.keys.filter { $0 <= latest }.sorted()
  }

  /// Counts one more response.
  public mutating func add(_ response: SurveyResponse) { count(response, by: 1) }

  /// Takes a response out of the counts: one that the support desk approved is counted again as
  /// what it became.
  public mutating func remove(_ response: SurveyResponse) { count(response, by: -1) }

  private mutating func count(_ response: SurveyResponse, by delta: Int) {
    func move(_ count: inout Int?) {
      let new = (count ?? 0) + delta
      count = new == 0 ? nil : new
    }
    // Counts kept before versions were counted go on without them (each version is then taken
    // as answered); new ones count them from their first response.
    if byVersion != nil || byOutcome.isEmpty {
      var versions = byVersion ?? [:]
      move(&versions[response.version])
      byVersion = versions
    }
    move(&byOutcome[response.outcome])
    if response.reviewed { reviewed += delta }
    guard response.outcome == .completed else { return }
    if let shownAt = response.shownAt {
      move(&seconds[max(0, Int(response.sentAt.timeIntervalSince(shownAt).rounded(.down)))])
    }
    move(&completesByDay[Day(response.sentAt, in: .tokyo).iso])
    for answer in response.answers {
      let question = answer.questionID.rawValue
      switch answer.value {
      case let .choice(choice): move(&picks[question, default: [:]][choice.rawValue])
      case let .choices(choices): for choice in choices { move(&picks[question, default: [:]][choice.rawValue]) }
      case let .grid(cells): for cell in cells { move(&picks["\(question)/\(cell.row)", default: [:]][cell.choice.rawValue]) }
      case .text, .rating, .number: break
      }
    }
    if delta < 0 { picks = picks.filter { !$0.value.isEmpty } }
  }

  /// These counts and `other`'s, together: those of two sets of responses (a process's share
  /// of a survey's, kept apart, may take some out: `remove`). Counts kept before versions were
  /// counted stay so.
  public func adding(_ other: ResponseCounts) -> ResponseCounts {
    func sum<Key>(_ mine: [Key: Int], _ theirs: [Key: Int]) -> [Key: Int] {
      mine.merging(theirs, uniquingKeysWith: +).filter { $0.value != 0 }
    }
    var total = self
    if byVersion != nil || byOutcome.isEmpty, byVersion != nil || other.byVersion != nil {
      total.byVersion = sum(byVersion ?? [:], other.byVersion ?? [:])
    }
    total.byOutcome = sum(byOutcome, other.byOutcome)
    total.reviewed += other.reviewed
    total.seconds = sum(seconds, other.seconds)
    total.completesByDay = sum(completesByDay, other.completesByDay)
    total.picks = picks.merging(other.picks) { sum($0, $1) }.filter { !$0.value.isEmpty }
    return total
  }

  /// The seconds below which `fraction` of the completes with a known time took (0.5: the median),
  /// `nil` without any.
  public func secondsPercentile(_ fraction: Double) -> Int? {
    let total = seconds.values.reduce(0, +)
    guard total > 0 else { return nil }
    let rank = max(1, Int((Double(total) * fraction).rounded(.up)))
    var seen = 0
    for (value, count) in seconds.sorted(by: { $0.key < $1.key }) {
      seen += count
      if seen >= rank { return value }
    }
    return seconds.keys.max()
  }
}
