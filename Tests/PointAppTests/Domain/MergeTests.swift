import Dependencies
import Foundation
import PointApp
import Testing

/// Transaction ids: the account's below 100, the guest's from 100.
private func id(_ number: Int) -> TransactionID { TransactionID(UUID(number)) }

/// The day `offset` days from `today`.
private func day(_ offset: Int) -> Day { Day(ordinal: today.ordinal + offset) }

private let big = Survey.fixture(id: "big", reward: 3_500)
private let gift = ExchangeOption.all[0]

private extension GuestHistory {
  /// The whole history of a guest that has archived nothing yet.
  init(_ guest: UserProgress) {
    self.init(
      answers: guest.answered, movements: guest.ledger.recent, missions: guest.missions, streak: guest.streak,
      achievements: guest.achievements, profile: guest.profile
    )
  }
}

private extension UserProgress {
  /// The movements' own sum, credits less debits, whatever the totals say.
  var sumOfMovements: Int {
    ledger.recent.reduce(0) { $0 + ($1.reason.isCredit ? $1.amount.value : -$1.amount.value) }
  }

  /// Progress after visits on `today` plus each offset.
  static func visited(_ offsets: [Int]) -> UserProgress {
    var progress = UserProgress()
    for offset in offsets {
      progress.recordVisit(on: day(offset), at: noon + days(Double(offset)))
    }
    return progress
  }
}

struct MergeTests {
  static let hanako = Profile(birthYear: 1996, gender: .female, prefecture: .tokyo, occupation: .companyEmployee)
  static let taro = Profile(birthYear: 1980, gender: .male, prefecture: .osaka, occupation: .selfEmployed)

  @Test func aGuestsProfileMovesWithItsBonusIntoAnAccountWithoutOne() {
    var account = UserProgress()
    account.recordAnswer(to: .breakfast, with: [], id: id(1), at: noon - days(2), on: day(-2))
    var guest = UserProgress()
    guest.saveProfile(Self.hanako, id: id(100), at: noon)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(account.profile == Self.hanako)
    #expect(account.ledger.recent.map(\.id) == [id(1), id(100)])
    #expect(account.ledger.balance.value == 40 + Profile.bonus.value)
    #expect(report.pointsMoved == Profile.bonus)
  }

  @Test func whenBothHaveAProfileTheAccountsStaysAndTheBonusIsPaidOnce() {
    var account = UserProgress()
    account.saveProfile(Self.taro, id: id(1), at: noon - days(5))
    var guest = UserProgress()
    guest.saveProfile(Self.hanako, id: id(100), at: noon)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(account.profile == Self.taro)
    #expect(account.ledger.recent.map(\.id) == [id(1)])
    #expect(account.ledger.balance == Profile.bonus)
    #expect(report.pointsMoved == 0)
  }

  @Test func aSurveyAnsweredInBothPaysOnceAndKeepsTheAccountsAnswer() {
    var account = UserProgress()
    account.recordAnswer(to: .breakfast, with: [], id: id(1), at: noon - days(2), on: day(-2))
    let accountsAnswer = account.answer(to: Survey.breakfast.id)
    var guest = UserProgress()
    guest.recordAnswer(to: .breakfast, with: [], id: id(100), at: noon, on: today)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(account.answer(to: Survey.breakfast.id) == accountsAnswer)
    #expect(account.ledger.recent.map(\.id) == [id(1)])
    #expect(account.ledger.balance == 40)
    #expect(account.answeredCount == 1)
    #expect(report == MergeReport(pointsMoved: 0, surveysMoved: 0, duplicateSurveys: [Survey.breakfast.id], duplicateMissions: []))
  }

  @Test func aSurveyAnsweredInTheAccountsArchivePaysOnce() {
    var account = UserProgress()
    for number in 0..<25 {
      account.recordAnswer(to: .fixture(id: "s\(number)", reward: 1), with: [], id: id(number), at: noon - days(3), on: day(-3))
    }
    _ = account.takeArchivable()
    #expect(account.answered[SurveyID("s0")] == nil && account.answer(to: SurveyID("s0")) != nil)
    var guest = UserProgress()
    guest.recordAnswer(to: .fixture(id: "s0", reward: 1), with: [], id: id(100), at: noon, on: today)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon)

    #expect(report.duplicateSurveys == [SurveyID("s0")])
    #expect(account.ledger.balance == 25)
  }

  @Test func aSurveyOnlyTheGuestAnsweredMovesWithItsAnswerAndReward() throws {
    var account = UserProgress()
    account.recordAnswer(to: .breakfast, with: [], id: id(1), at: noon, on: today)
    var guest = UserProgress()
    let answers = [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))]
    guest.recordAnswer(to: .travel, with: answers, id: id(100), at: noon - days(1), on: day(-1))

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(account.answer(to: Survey.travel.id) == guest.answer(to: Survey.travel.id))
    #expect(account.answer(to: Survey.travel.id)?.answers == answers)
    #expect(account.answeredCount == 2)
    #expect(account.ledger.recent.last == guest.ledger.recent.last, "same id, date, amount and reason")
    #expect(account.ledger.balance == 130)
    #expect(report == MergeReport(pointsMoved: 90, surveysMoved: 1, duplicateSurveys: [], duplicateMissions: []))
    let paidAgain = account.recordAnswer(to: .travel, with: [], id: id(2), at: noon + 120, on: today)
    #expect(!paidAgain, "it still pays once")
  }

  @Test func everyMovementKeepsItsUniqueIdAndTheBalanceIsTheirSum() throws {
    var ids = 0
    var account = UserProgress.answered([.breakfast, big], ids: &ids)
    try account.requestExchange(gift, id: id(10), at: noon + 1)
    var guest = UserProgress()
    guest.recordVisit(on: today, at: noon)
    guest.recordAnswer(to: .fixture(id: "guest-big", reward: 3_500), with: [], id: id(100), at: noon, on: today)
    guest.recordAnswer(to: .sweets, with: [], id: id(101), at: noon, on: today)
    try guest.claimMission(.answerOne, id: id(102), at: noon, on: today)
    try guest.requestExchange(gift, id: id(103), at: noon)

    _ = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    let moved = account.ledger.recent.map(\.id)
    #expect(moved == [id(0), id(1), id(10), id(100), id(101), id(102), id(103)])
    #expect(Set(moved).count == moved.count)
    #expect(account.ledger.balance.value == account.sumOfMovements)
    #expect(account.ledger.totalEarned.value == 40 + 3_500 + 3_500 + 60 + 10)
    #expect(account.ledger.totalSpent == 6_000)
    #expect(account.ledger.balance == 1_110)
  }

  @Test func todaysMissionClaimedInBothPaysOnceAndTheOthersCountAsClaimed() throws {
    var account = UserProgress()
    account.recordVisit(on: today, at: noon)
    try account.claimMission(.visit, id: id(1), at: noon, on: today)
    var guest = UserProgress()
    guest.recordVisit(on: today, at: noon)
    guest.recordAnswer(to: .sweets, with: [], id: id(100), at: noon, on: today)
    try guest.claimMission(.visit, id: id(101), at: noon, on: today)
    try guest.claimMission(.answerOne, id: id(102), at: noon, on: today)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(report.duplicateMissions == [.visit])
    #expect(report.pointsMoved.value == 60 + 10)
    #expect(account.ledger.recent.map(\.id) == [id(1), id(100), id(102)])
    #expect(account.missions.missions(on: today).filter(\.isClaimed).map(\.kind) == [.visit, .answerOne])
    #expect(throws: PointError.missionAlreadyClaimed) {
      try account.claimMission(.answerOne, id: id(2), at: noon + 120, on: today)
    }
  }

  @Test func aBonusOfAPastDayIsKeptEvenJustBeforeMidnightInTokyo() throws {
    let nextDay = today.next
    var account = UserProgress()
    account.recordVisit(on: nextDay, at: firstSecondOfNextDay)
    try account.claimMission(.visit, id: id(1), at: firstSecondOfNextDay, on: nextDay)
    var guest = UserProgress()
    guest.recordVisit(on: today, at: lastSecondOfTheDay)
    try guest.claimMission(.visit, id: id(100), at: lastSecondOfTheDay, on: today)
    guest.recordVisit(on: nextDay, at: firstSecondOfNextDay)
    try guest.claimMission(.visit, id: id(101), at: firstSecondOfNextDay, on: nextDay)

    let report = account.absorb(GuestHistory(guest), on: nextDay, at: firstSecondOfNextDay + 60)

    #expect(account.ledger.recent.map(\.id) == [id(1), id(100)])
    #expect(account.ledger.balance == 10)
    #expect(report.duplicateMissions == [.visit])
  }

  @Test func todaysMissionsCountTheGuestsVisitAndTheAnswersThatMovedToday() {
    var account = UserProgress()
    account.recordAnswer(to: .breakfast, with: [], id: id(1), at: noon - days(1), on: day(-1))
    account.recordAnswer(to: .travel, with: [], id: id(2), at: noon, on: today)
    var guest = UserProgress()
    guest.recordAnswer(to: .fixture(id: "yesterday", reward: 7), with: [], id: id(100), at: noon - days(1), on: day(-1))
    guest.recordVisit(on: today, at: noon)
    guest.recordAnswer(to: .breakfast, with: [], id: id(101), at: noon, on: today)
    guest.recordAnswer(to: .sweets, with: [], id: id(102), at: noon, on: today)

    _ = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    // The visit; travel and the guest's sweets: not yesterday's answer, nor the guest's breakfast,
    // which paid nothing.
    #expect(account.missions.missions(on: today).map(\.progress) == [1, 2, 2, 90 + 60])
  }

  @Test func absorbingTheSameGuestTwicePaysOnce() throws {
    var account = UserProgress()
    account.recordAnswer(to: .breakfast, with: [], id: id(1), at: noon, on: today)
    var guest = UserProgress()
    guest.recordVisit(on: day(-1), at: noon - days(1))
    try guest.claimMission(.visit, id: id(100), at: noon - days(1), on: day(-1))
    guest.recordVisit(on: today, at: noon)
    guest.recordAnswer(to: big, with: [], id: id(101), at: noon, on: today)
    guest.recordAnswer(to: .sweets, with: [], id: id(102), at: noon, on: today)
    try guest.claimMission(.answerOne, id: id(103), at: noon, on: today)
    try guest.requestExchange(gift, id: id(104), at: noon)

    let first = account.absorb(GuestHistory(guest), on: today, at: noon + 60)
    let once = account
    let second = account.absorb(GuestHistory(guest), on: today, at: noon + 120)

    #expect(first.pointsMoved.value == 5 + 3_500 + 60 + 10 - 3_000)
    #expect(account == once, "nothing paid or counted again, today's missions included")
    #expect(second == MergeReport(pointsMoved: 0, surveysMoved: 0, duplicateSurveys: [big.id, Survey.sweets.id], duplicateMissions: []))
  }

  @Test func anExchangeOfADroppedDuplicatesPointsIsRecoveredFromTheAccount() throws {
    var account = UserProgress()
    account.recordAnswer(to: big, with: [], id: id(1), at: noon - days(1), on: day(-1))
    var guest = UserProgress()
    guest.recordAnswer(to: big, with: [], id: id(100), at: noon, on: today)
    try guest.requestExchange(gift, id: id(101), at: noon)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(account.ledger.recent.map(\.id) == [id(1), id(101)], "the exchange happened: it moves")
    #expect(account.ledger.balance == 500)
    #expect(report == MergeReport(pointsMoved: 0, pointsDeducted: 3_000, surveysMoved: 0, duplicateSurveys: [big.id], duplicateMissions: []))
  }

  @Test func anExchangeTheAccountCannotCoverLeavesZeroUntilEarningsMakeUpTheDifference() throws {
    var account = UserProgress()
    account.recordAnswer(to: big, with: [], id: id(1), at: noon - days(1), on: day(-1))
    try account.requestExchange(gift, id: id(2), at: noon - days(1))
    var guest = UserProgress()
    guest.recordAnswer(to: big, with: [], id: id(100), at: noon, on: today)
    try guest.requestExchange(gift, id: id(101), at: noon)

    let report = account.absorb(GuestHistory(guest), on: today, at: noon + 60)

    #expect(report.pointsDeducted == 3_000)
    #expect(account.ledger.totalEarned == 3_500 && account.ledger.totalSpent == 6_000, "the totals stay exact")
    #expect(account.sumOfMovements == -2_500)
    #expect(account.ledger.balance == 0, "points never go below zero")
    #expect(throws: PointError.insufficientBalance) {
      try account.requestExchange(gift, id: id(3), at: noon + 120)
    }
    account.recordAnswer(to: .fixture(id: "s1", reward: 2_400), with: [], id: id(4), at: noon + 180, on: today)
    #expect(account.ledger.balance == 0, "100 pt still to make up")
    account.recordAnswer(to: .fixture(id: "s2", reward: 300), with: [], id: id(5), at: noon + 240, on: today)
    #expect(account.ledger.balance == 200)
  }

  @Test func streaksJoinWhenTheGuestVisitedTheDayAfterTheAccount() {
    var account = UserProgress.visited([-5, -4, -3, -2, -1])
    _ = account.absorb(GuestHistory(.visited([0])), on: today, at: noon)
    #expect(account.streak.days(asOf: today) == 6)
    #expect(account.streak.longest == 6)
    #expect(account.streak.lastVisit == today)
  }

  @Test func onTheSameLastDayTheLargerCurrentAndTheLongerLongestAreKept() {
    var account = UserProgress.visited([-2, -1, 0])
    _ = account.absorb(GuestHistory(.visited(Array(-20 ..< -10) + [0])), on: today, at: noon)
    #expect(account.streak.current == 3)
    #expect(account.streak.longest == 10)
    #expect(account.achievements.keys.contains(.sevenDayStreak))
  }

  @Test func afterAMissedDayTheLaterRunIsTheCurrentOne() {
    var account = UserProgress.visited([-5, -4, -3])
    _ = account.absorb(GuestHistory(.visited([-1, 0])), on: today, at: noon)
    #expect(account.streak.current == 2)
    #expect(account.streak.longest == 3)
  }

  @Test func achievementsKeepTheEarliestDateAndTheMergedProgressUnlocksMore() throws {
    var ids = 0
    var account = UserProgress.answered((0..<9).map { Survey.fixture(id: "a\($0)", reward: 1) }, at: noon - 60, ids: &ids)
    var guest = UserProgress()
    guest.recordAnswer(to: .fixture(id: "g", reward: 1), with: [], id: id(100), at: noon - 120, on: today)

    _ = account.absorb(GuestHistory(guest), on: today, at: noon)

    #expect(account.achievements == [.firstAnswer: noon - 120, .tenAnswers: noon])
  }
}
