import Foundation

/// What an operator exports of a survey's responses: as CSV or JSON Lines, of one outcome or all,
/// sent within a range of days in Tokyo (either end open).
public struct ResponseExport: Equatable, Sendable {
  public enum Format: String, Equatable, Sendable {
    case csv, jsonl
  }

  public var format: Format
  /// `nil`: every outcome.
  public var outcome: SurveyResponse.Outcome?
  /// The first day, from its start; `nil`: from the first response.
  public var from: Day?
  /// The last day, to its end; `nil`: to the last response.
  public var through: Day?

  public init(format: Format, outcome: SurveyResponse.Outcome? = nil, from: Day? = nil, through: Day? = nil) {
    self.format = format
    self.outcome = outcome
    self.from = from
    self.through = through
  }

  /// Whether `response` is one of those asked for.
  public func includes(_ response: SurveyResponse) -> Bool {
    if let outcome, response.outcome != outcome { return false }
    let day = Day(response.sentAt, in: .tokyo)
    if let from, day < from { return false }
    if let through, day > through { return false }
    return true
  }

  /// The export as the audit log shows it.
  public var summary: String {
    var parts = [format == .csv ? "CSV" : "JSON Lines", outcome?.title ?? "すべての結果"]
    if from != nil || through != nil { parts.append("\(from?.iso ?? "")〜\(through?.iso ?? "")") }
    return parts.joined(separator: "・")
  }
}
