import Foundation

/// A survey's responses counted as they are recorded, for its dashboard: by outcome, reviews
/// asked for, answering times, completes per day and the picks of each choice question. Kept
/// beside the responses and moved on with each, so that a dashboard reads one small record
/// instead of every response.
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

  public init() {}

  public var completes: Int { byOutcome[.completed] ?? 0 }

  /// Counts one more response.
  public mutating func add(_ response: SurveyResponse) {
    byOutcome[response.outcome, default: 0] += 1
    if response.reviewed { reviewed += 1 }
    guard response.outcome == .completed else { return }
    if let shownAt = response.shownAt {
      seconds[max(0, Int(response.sentAt.timeIntervalSince(shownAt).rounded(.down))), default: 0] += 1
    }
    let parts = Calendar.tokyo.dateComponents([.year, .month, .day], from: response.sentAt)
    completesByDay[String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!), default: 0] += 1
    for answer in response.answers {
      let question = answer.questionID.rawValue
      switch answer.value {
      case let .choice(choice): picks[question, default: [:]][choice.rawValue, default: 0] += 1
      case let .choices(choices): for choice in choices { picks[question, default: [:]][choice.rawValue, default: 0] += 1 }
      case let .grid(cells): for cell in cells { picks["\(question)/\(cell.row)", default: [:]][cell.choice.rawValue, default: 0] += 1 }
      case .text, .rating, .number: break
      }
    }
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
