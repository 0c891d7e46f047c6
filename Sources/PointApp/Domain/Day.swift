import Foundation

/// A calendar day, counted in the calendar the app runs on (Asia/Tokyo): missions reset and
/// streaks count by it.
public struct Day: Codable, Hashable, Comparable, Sendable {
  /// Days since the calendar's epoch; consecutive days differ by one.
  public let ordinal: Int

  public init(ordinal: Int) { self.ordinal = ordinal }

  /// The day `date` falls on in the calendar's time zone: days since 1970-01-01 there.
  /// Computed from the zone's offset at that moment, which is exact for any zone and avoids the
  /// calendar's much slower component arithmetic on every request.
  public init(_ date: Date, in calendar: Calendar) {
    self = Self.split(date, in: calendar).day
  }

  /// The day `date` falls on in the calendar's time zone, and the whole seconds from that day's
  /// midnight to it: what a clock there shows.
  public static func split(_ date: Date, in calendar: Calendar) -> (day: Day, second: Int) {
    let local = date.wholeSecondsSince1970 + calendar.timeZone.secondsFromGMT(for: date)
    let day = Day(ordinal: local >= 0 ? local / 86_400 : (local - 86_399) / 86_400)
    return (day, local - day.ordinal * 86_400)
  }

  public var next: Day { Day(ordinal: ordinal + 1) }

  public static func < (lhs: Day, rhs: Day) -> Bool { lhs.ordinal < rhs.ordinal }

  public init(from decoder: any Decoder) throws {
    ordinal = try decoder.singleValueContainer().decode(Int.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(ordinal)
  }
}

extension Calendar {
  /// The Gregorian calendar in Japan's time zone: the app's days begin at midnight JST. Japan has
  /// kept no summer time since 1951, so the zone is a fixed +09:00: the tz database's
  /// `Asia/Tokyo` (and a Japanese locale, which no computation here reads) gave the same days
  /// through ICU, whose data then stayed in every server's memory (BENCHMARKS.md, issue 41).
  public static let tokyo: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 9 * 3_600)!
    return calendar
  }()
}

extension Day {
  /// The day a date of the form `2026-11-22` names in Tokyo; `nil` for anything else.
  public init?(iso text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard text.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
    let components = DateComponents(year: year, month: month, day: day, hour: 12)
    guard components.isValidDate(in: .tokyo), let noon = Calendar.tokyo.date(from: components) else { return nil }
    self.init(noon, in: .tokyo)
  }

  /// `2026-11-22`.
  public var iso: String {
    var text: [UInt8] = []
    text.reserveCapacity(10)
    appendISO(to: &text)
    return String(decoding: text, as: UTF8.self)
  }

  /// `iso`'s bytes, for a text that goes on after it (a time of day). Written digit by digit:
  /// `String(format:)` goes through Foundation's format parser, which took a tenth of an export's
  /// time, and every answer's counts name its day.
  public func appendISO(to text: inout [UInt8]) {
    let (year, month, day) = civil
    Self.append(year, digits: 4, to: &text)
    text.append(UInt8(ascii: "-"))
    Self.append(month, digits: 2, to: &text)
    text.append(UInt8(ascii: "-"))
    Self.append(day, digits: 2, to: &text)
  }

  /// A number in decimal, with zeros in front up to `count` digits (at least one); a negative
  /// one's sign comes before them (-5 in four digits: `-0005`). Dates' numbers, written in their
  /// fixed widths without `String(format:)`.
  public static func append(_ number: Int, digits count: Int, to text: inout [UInt8]) {
    precondition(count >= 1, "at least one digit")
    if number < 0 { text.append(UInt8(ascii: "-")) }
    let magnitude = number.magnitude
    var divisor: UInt = 1
    for _ in 1..<count { divisor *= 10 }
    while magnitude / divisor >= 10 { divisor *= 10 }
    while divisor > 0 {
      text.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
      divisor /= 10
    }
  }

  /// Its date in the proleptic Gregorian calendar (Howard Hinnant's `civil_from_days`): the
  /// calendar's component arithmetic is far slower, and exports and saved states write many.
  public var civil: (year: Int, month: Int, day: Int) {
    let shifted = ordinal + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}

extension Date {
  /// The whole seconds since 1970 that the moment falls in, counted as Foundation's ISO 8601
  /// formatting counts them (`JSONEncoder`'s dates): floored from the reference date (2001), which
  /// is what a `Date` holds. Flooring `timeIntervalSince1970` instead (a sum rounded to the nearest
  /// double) gives the next second for a moment in the last ~120 ns of one: the crash test once
  /// found an answer saved at :56 whose response, encoded by `JSONEncoder`, said :55.
  public var wholeSecondsSince1970: Int { Int(timeIntervalSinceReferenceDate.rounded(.down)) + 978_307_200 }
}
