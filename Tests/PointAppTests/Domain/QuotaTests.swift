import Foundation
import PointApp
import Testing

struct QuotaTests {
  @Test func placesAreTheTargetLessThoseCollectedElsewhere() {
    let quota = Quota(target: 300, collected: 280)
    #expect(quota.places == 20)
    #expect(quota.remaining(taken: 19) == 1)
    #expect(quota.remaining(taken: 20) == 0)
    #expect(quota.remaining(taken: 25) == 0, "never below none")
    #expect(Quota(target: 50, collected: 60).places == 0)
  }

  /// A tenth of the target or less, at most 50, at least 1.
  @Test func fewPlacesLeftIsATenthOfTheTargetAtMostFifty() {
    #expect(Quota(target: 300).isNearlyFull(remaining: 30))
    #expect(!Quota(target: 300).isNearlyFull(remaining: 31))
    #expect(Quota(target: 5_000).isNearlyFull(remaining: 50))
    #expect(!Quota(target: 5_000).isNearlyFull(remaining: 51))
    #expect(Quota(target: 5).isNearlyFull(remaining: 1))
    #expect(!Quota(target: 5).isNearlyFull(remaining: 2))
    #expect(!Quota(target: 300).isNearlyFull(remaining: 0), "none left is full, not few")
  }

  @Test func aSurveyClosesWhenItsPlacesAreTaken() {
    let survey = Survey.fixture(id: "q", quota: Quota(target: 10, collected: 7))
    #expect(survey.counting(taken: 2).closure(at: noon) == nil)
    #expect(survey.counting(taken: 2).remainingPlaces == 1)
    #expect(survey.counting(taken: 2).isNearlyFull)
    #expect(survey.counting(taken: 3).closure(at: noon) == .full)
    #expect(!survey.counting(taken: 3).isAvailable(at: noon))
    #expect(Survey.breakfast.counting(taken: 1_000).closure(at: noon) == nil, "no quota, no limit")
  }

  /// A deadline of 12月1日 0:00 in Tokyo: the last second of 11月30日 is open, midnight is closed.
  @Test func aDeadlineAtMidnightInTokyoClosesAtThatMidnight() throws {
    let midnight = try Date("2026-12-01T00:00:00+09:00", strategy: .iso8601)
    let survey = Survey.fixture(id: "d", publishedAt: midnight - days(10), expiresAt: midnight, quota: Quota(target: 100))
    #expect(survey.closure(at: midnight - 1) == nil)
    #expect(survey.closure(at: midnight) == .deadlinePassed)
    #expect(survey.counting(taken: 100).closure(at: midnight) == .deadlinePassed, "the deadline is said first")
  }

  @Test func countedPlacesAreCompared() {
    let survey = Survey.fixture(id: "q", quota: Quota(target: 10))
    #expect(survey.counting(taken: 1) != survey.counting(taken: 2))
    #expect(survey.counting(taken: 1) == survey.counting(taken: 1))
  }
}
