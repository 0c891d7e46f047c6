import Foundation

/// What an operator exports of a survey's responses: as CSV or JSON Lines, of one outcome or all,
/// sent within a range of days in Tokyo (either end open), and no later than the moment it was
/// cut: the same filters and cut give the same file, byte for byte, while no version is published
/// and no answer approved after the cut.
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
  /// The moment it was cut, to the second: responses sent after it are left out; `nil`: not cut
  /// yet (an export is cut when it is asked for, and its address then names the cut).
  public var cut: Date?

  public init(format: Format, outcome: SurveyResponse.Outcome? = nil, from: Day? = nil, through: Day? = nil, cut: Date? = nil) {
    self.format = format
    self.outcome = outcome
    self.from = from
    self.through = through
    self.cut = cut
  }

  /// The export cut at `date` (to the whole second before it).
  public func cut(at date: Date) -> ResponseExport {
    var export = self
    export.cut = Date(timeIntervalSince1970: TimeInterval(date.wholeSecondsSince1970))
    return export
  }

  /// Its filters and cut as a query (`outcome=&from=&to=&cut=20261127-120000`), as the console's
  /// addresses carry them, every key in this order.
  public var query: String {
    "outcome=\(outcome?.rawValue ?? "")&from=\(from?.iso ?? "")&to=\(through?.iso ?? "")&cut=\(cut.map(Self.cutText) ?? "")"
  }

  /// A cut as its address writes it: Tokyo time, `20261127-120000`.
  public static func cutText(_ date: Date) -> String {
    let text = ResponseTable.format(date)  // 2026-11-27 12:00:00
    return text.filter { $0 != "-" && $0 != ":" }.replacingOccurrences(of: " ", with: "-")
  }

  /// A cut read from its address; `nil` when it is not one.
  public static func cut(from text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count == 15, bytes[8] == UInt8(ascii: "-") else { return nil }
    let digits = bytes[..<8] + bytes[9...]
    guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
    func number(_ range: Range<Int>) -> Int {
      digits.dropFirst(range.lowerBound).prefix(range.count).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
    let (year, month, day, hour, minute, second) = (number(0..<4), number(4..<6), number(6..<8), number(8..<10), number(10..<12), number(12..<14))
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    guard (2000...2999).contains(year), second < 60, components.isValidDate(in: Calendar.tokyo) else { return nil }
    return Calendar.tokyo.date(from: components)
  }

  /// Whether `response` is one of those asked for.
  public func includes(_ response: SurveyResponse) -> Bool {
    if let outcome, response.outcome != outcome { return false }
    let day = Day(response.sentAt, in: .tokyo)
    if let from, day < from { return false }
    if let through, day > through { return false }
    if let cut, response.sentAt > cut { return false }
    return true
  }

  /// The export as the audit log shows it.
  public var summary: String {
    var parts = [format == .csv ? "CSV" : "JSON Lines", outcome?.title ?? "すべての結果"]
    if from != nil || through != nil { parts.append("\(from?.iso ?? "")〜\(through?.iso ?? "")") }
    if let cut { parts.append("\(ResponseTable.format(cut))時点") }
    return parts.joined(separator: "・")
  }
}
