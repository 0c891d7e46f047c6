import Dependencies
import Foundation
import PointApp
import Testing

struct UserProgressTests {
  @Test func aSurveyPaysExactlyOnce() {
    var progress = UserProgress()
    let first = progress.recordAnswer(to: .breakfast, with: [], id: TransactionID(UUID(1)), at: noon, on: today)
    let afterFirst = progress
    let second = progress.recordAnswer(to: .breakfast, with: [], id: TransactionID(UUID(2)), at: noon + 60, on: today)
    #expect(first && !second)
    #expect(progress == afterFirst)
    #expect(progress.ledger.balance == 40)
    #expect(progress.answered[Survey.breakfast.id]?.date == noon)
  }

  @Test func answeringAdvancesTodaysMissions() {
    var ids = 0
    let progress = UserProgress.answered([.breakfast, .sweets], ids: &ids)
    let missions = progress.missions.missions(on: today)
    #expect(missions.map(\.progress) == [0, 2, 2, 100])
    #expect(missions.map(\.isClaimable) == [false, true, false, true])
  }

  @Test func aMissionPaysItsBonusOncePerDay() throws {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    try progress.claimMission(.visit, id: TransactionID(UUID(1)), at: noon, on: today)
    #expect(progress.ledger.balance == 5)
    #expect(throws: PointError.missionAlreadyClaimed) {
      try progress.claimMission(.visit, id: TransactionID(UUID(2)), at: noon, on: today)
    }
    #expect(progress.ledger.balance == 5)
  }

  @Test func anUnfinishedMissionCannotBeClaimed() {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    let before = progress
    #expect(throws: PointError.missionNotCompleted) {
      try progress.claimMission(.answerOne, id: TransactionID(UUID(1)), at: noon + days(1), on: today.next)
    }
    #expect(progress == before)
  }

  @Test func missionsStartAgainAtMidnightInTokyo() throws {
    var progress = UserProgress()
    let lastDay = Day(lastSecondOfTheDay, in: .tokyo)
    let nextDay = Day(firstSecondOfNextDay, in: .tokyo)
    #expect(lastDay == today && nextDay == today.next)

    progress.recordVisit(on: lastDay, at: lastSecondOfTheDay)
    try progress.claimMission(.visit, id: TransactionID(UUID(1)), at: lastSecondOfTheDay, on: lastDay)
    #expect(progress.missions.missions(on: nextDay).map(\.progress) == [0, 0, 0, 0])
    #expect(throws: PointError.missionNotCompleted) {
      try progress.claimMission(.visit, id: TransactionID(UUID(2)), at: firstSecondOfNextDay, on: nextDay)
    }
    progress.recordVisit(on: nextDay, at: firstSecondOfNextDay)
    try progress.claimMission(.visit, id: TransactionID(UUID(3)), at: firstSecondOfNextDay, on: nextDay)
    #expect(progress.ledger.balance == 10)
  }

  @Test func theDayTurnsAtMidnightInTokyoNotInUTC() {
    let utc = { var calendar = Calendar(identifier: .gregorian); calendar.timeZone = .gmt; return calendar }()
    #expect(Day(lastSecondOfTheDay, in: utc) == Day(firstSecondOfNextDay, in: utc))
    #expect(Day(lastSecondOfTheDay, in: .tokyo) != Day(firstSecondOfNextDay, in: .tokyo))
  }

  @Test func achievementsUnlockOnceWithTheirDate() {
    var progress = UserProgress()
    progress.recordAnswer(to: .breakfast, with: [], id: TransactionID(UUID(1)), at: noon, on: today)
    #expect(progress.achievements == [.firstAnswer: noon])
    progress.recordAnswer(to: .sweets, with: [], id: TransactionID(UUID(2)), at: noon + 60, on: today)
    #expect(progress.achievements == [.firstAnswer: noon])
  }

  @Test func milestonesUnlockTheirAchievements() throws {
    var ids = 0
    let surveys = (0..<10).map { Survey.fixture(id: "s\($0)", reward: 300) }
    var progress = UserProgress.answered(surveys, ids: &ids)
    #expect(Set(progress.achievements.keys) == [.firstAnswer, .tenAnswers, .thousandPoints])
    try progress.requestExchange(ExchangeOption.all[0], id: TransactionID(UUID(99)), at: noon + 1)
    #expect(progress.achievements[.firstExchange] == nil, "requested, not exchanged yet")
    progress.fulfilExchange(1, with: GiftCode("CODE"), at: noon + 2)
    #expect(progress.achievements[.firstExchange] == noon + 2)
  }

  @Test func sevenVisitedDaysInARowUnlockTheStreakAchievement() {
    var progress = UserProgress()
    for offset in 0..<7 {
      progress.recordVisit(on: Day(ordinal: today.ordinal + offset), at: noon + days(Double(offset)))
    }
    #expect(progress.streak.days(asOf: Day(ordinal: today.ordinal + 6)) == 7)
    #expect(progress.achievements[.sevenDayStreak] == noon + days(6))
  }

  @Test func oldAnswersMoveToTheArchiveAndStillPayOnlyOnce() {
    var progress = UserProgress()
    for number in 0..<25 {
      progress.recordAnswer(
        to: .fixture(id: "s\(number)", reward: 1), with: [], id: TransactionID(UUID(number)), at: noon + Double(number), on: today
      )
    }
    let before = progress
    let (segments, answers, _) = progress.takeArchivable()
    #expect(segments.map(\.start) == [0])
    #expect(Set(answers.keys) == Set((0..<20).map { SurveyID("s\($0)") }), "the oldest leave")
    #expect(Set(progress.answered.keys) == Set((20..<25).map { SurveyID("s\($0)") }), "the newest five stay")
    #expect(progress.answeredCount == 25)
    #expect(progress.answer(to: SurveyID("s3")) == before.answer(to: SurveyID("s3")), "still readable once loaded")

    let archived = progress
    let paid = progress.recordAnswer(to: .fixture(id: "s3", reward: 1), with: [], id: TransactionID(UUID(99)), at: noon, on: today)
    #expect(!paid)
    #expect(progress == archived)
  }

  @Test func fewerThan25AnswersStayInTheState() {
    var ids = 0
    var progress = UserProgress.answered((0..<24).map { Survey.fixture(id: "s\($0)", reward: 1) }, ids: &ids)
    let moved = progress.takeArchivable()
    #expect(moved.answers.isEmpty)
    #expect(progress.answered.count == 24)
  }
}
