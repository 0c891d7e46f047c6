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
    let local = date.timeIntervalSince1970 + Double(calendar.timeZone.secondsFromGMT(for: date))
    ordinal = Int((local / 86_400).rounded(.down))
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
  /// The Gregorian calendar in Japan's time zone: the app's days begin at midnight JST.
  public static let tokyo: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Asia/Tokyo")!
    calendar.locale = Locale(identifier: "ja_JP")
    return calendar
  }()
}
