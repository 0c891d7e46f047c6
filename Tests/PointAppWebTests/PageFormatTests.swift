import Foundation
import PointApp
import Testing

@testable import PointAppWeb

/// The pages' dates, written out by hand, read as `Date.FormatStyle` in Japanese writes them.
struct PageFormatTests {
  @Test func datesAreWrittenAsJapaneseFormatStylesWriteThem() {
    let japanese = Locale(identifier: "ja_JP")
    let numeric = Date.FormatStyle(date: .numeric, time: .shortened, locale: japanese, calendar: .tokyo, timeZone: Calendar.tokyo.timeZone)
    let abbreviated = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: japanese, calendar: .tokyo, timeZone: Calendar.tokyo.timeZone)
    var generator = SystemRandomNumberGenerator()
    // Midnight in Tokyo on either side of a year's end, a leap day, minutes under ten, then any
    // moment between 1970 and 2100 (fractions of seconds included).
    let edges: [TimeInterval] = [0, 1_767_193_199, 1_767_193_200, 1_767_193_200.999, 1_709_218_740, 1_709_164_800 - 32_400, 1_800_000_305]
    let moments = edges + (0..<2_000).map { _ in TimeInterval.random(in: 0...4_102_444_800, using: &generator) }
    for moment in moments {
      let date = Date(timeIntervalSince1970: moment)
      #expect(Pages.date(date) == date.formatted(numeric), "\(moment)")
      #expect(Pages.day(date) == date.formatted(abbreviated), "\(moment)")
    }
  }
}
