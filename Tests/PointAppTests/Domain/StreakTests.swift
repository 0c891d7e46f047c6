import Foundation
import PointApp
import Testing

struct StreakTests {
  @Test func growsOnConsecutiveDaysAndCountsADayOnce() {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    progress.recordVisit(on: today, at: noon + 60)
    progress.recordVisit(on: today.next, at: noon + days(1))
    #expect(progress.streak.current == 2)
    #expect(progress.streak.days(asOf: today.next) == 2)
    #expect(progress.streak.days(asOf: today.next.next) == 2)
  }

  @Test func breaksAfterAMissedDayButRemembersTheLongest() {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    progress.recordVisit(on: today.next, at: noon + days(1))
    let twoDaysLater = today.next.next.next
    #expect(progress.streak.days(asOf: twoDaysLater) == 0)
    progress.recordVisit(on: twoDaysLater, at: noon + days(3))
    #expect(progress.streak.current == 1)
    #expect(progress.streak.longest == 2)
  }
}
