import Foundation

/// A calendar month in Japan's time zone: points are earned, expire and decide ranks by it.
public struct Month: Hashable, Comparable, Sendable {
  /// Months since January of year 0; consecutive months differ by one.
  public let ordinal: Int

  public init(ordinal: Int) { self.ordinal = ordinal }

  public init(year: Int, month: Int) {
    precondition((1...12).contains(month), "no month \(month)")
    ordinal = year * 12 + month - 1
  }

  /// The month `date` falls in, in Tokyo.
  public init(_ date: Date) {
    let (year, month, _) = Day(date, in: .tokyo).civil
    self.init(year: year, month: month)
  }

  public var year: Int { ordinal >= 0 ? ordinal / 12 : (ordinal - 11) / 12 }
  public var month: Int { ordinal - year * 12 + 1 }

  public static func + (month: Month, count: Int) -> Month { Month(ordinal: month.ordinal + count) }
  public static func - (month: Month, count: Int) -> Month { Month(ordinal: month.ordinal - count) }
  public static func < (lhs: Month, rhs: Month) -> Bool { lhs.ordinal < rhs.ordinal }

  /// Its first day, in Tokyo.
  public var firstDay: Day { Day(ordinal: Self.daysFromCivil(year: year, month: month, day: 1)) }

  /// Its first instant: 00:00 JST on the 1st (Japan keeps no summer time).
  public var start: Date {
    Date(timeIntervalSince1970: Double(firstDay.ordinal) * 86_400 - Double(Calendar.tokyo.timeZone.secondsFromGMT()))
  }

  /// `2027年3月`.
  public var label: String { "\(year)年\(month)月" }

  /// `2027-03`: how it is written in saved states and ledger reasons.
  public var iso: String {
    (month < 10 ? "\(year)-0\(month)" : "\(year)-\(month)")
  }

  public init?(iso text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
      (1...12).contains(month)
    else { return nil }
    self.init(year: year, month: month)
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`,
  /// the inverse of `Day.civil`).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let year = month <= 2 ? year - 1 : year
    let era = (year >= 0 ? year : year - 399) / 400
    let yearOfEra = year - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}

extension Month: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let month = Month(iso: text) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a month: \(text)")
    }
    self = month
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(iso)
  }
}
