import Foundation
import PointApp
import Testing

/// An instant in Tokyo.
func jst(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0, _ second: Int = 0) -> Date {
  Calendar.tokyo.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

/// Points expire by the month (JST) they were earned in, at the end of the same month a year
/// later; the oldest are spent first; the rank comes from the last twelve months' earnings.
struct PointLotsTests {
  var ids = 0
  mutating func id() -> TransactionID {
    ids += 1
    return TransactionID(UUID(ids))
  }

  mutating func earn(_ amount: PointAmount, at date: Date, in progress: inout UserProgress) {
    progress.recordAnswer(
      to: .fixture(id: "s\(ids)", reward: amount), with: [], id: id(), at: date, on: Day(date, in: .tokyo),
      bonusID: { TransactionID(UUID(1_000 + ids)) }
    )
  }

  @Test func aMonthIsTokyosEvenWhereUTCIsStillInTheOldOne() {
    // 2026-12-31 23:59:59 JST is in December; a second later it is January, while UTC says 15:00.
    #expect(Month(jst(2026, 12, 31, 23, 59, 59)) == Month(year: 2026, month: 12))
    #expect(Month(jst(2027, 1, 1, 0, 0, 0)) == Month(year: 2027, month: 1))
    #expect(Month(year: 2027, month: 1).start == Date(timeIntervalSince1970: 1_798_729_200))  // 2026-12-31T15:00:00Z
    #expect(Month(year: 2026, month: 12) + 1 == Month(year: 2027, month: 1))
    #expect(Month(year: 2027, month: 1) - 13 == Month(year: 2025, month: 12))
    #expect(Month(iso: "2028-02") == Month(year: 2028, month: 2))
    #expect(Month(iso: "2028-13") == nil && Month(iso: "28-02") == nil)
  }

  @Test func pointsEarnedInAMonthExpireAtTheEndOfTheSameMonthAYearLater() {
    // Earned at the last second of March 2026: they expire when March 2027 ends, not a second before.
    let march = Month(jst(2026, 3, 31, 23, 59, 59))
    #expect(march.pointsExpireAt == jst(2027, 4, 1, 0, 0, 0))
    #expect(march.expiryLabel == "2027年3月末")
    // A second later is April: a month more.
    #expect(Month(jst(2026, 4, 1, 0, 0, 0)).pointsExpireAt == jst(2027, 5, 1, 0, 0, 0))
  }

  @Test mutating func aLeapDaysPointsExpireWhenTheFollowingFebruaryEnds() {
    // 2028-02-29 is a leap day; February 2029 has 28 days: its points last until 2029-03-01 00:00 JST.
    let leap = Month(jst(2028, 2, 29, 8))
    #expect(leap == Month(year: 2028, month: 2))
    #expect(leap.pointsExpireAt == jst(2029, 3, 1, 0, 0, 0))
    var progress = UserProgress()
    earn(500, at: jst(2028, 2, 29, 8), in: &progress)
    #expect(progress.ledger.balance(at: jst(2029, 2, 28, 23, 59, 59)) == 500)
    #expect(progress.ledger.balance(at: jst(2029, 3, 1, 0, 0, 0)) == 0)
  }

  @Test mutating func aYearsEndSeparatesDecembersPointsFromJanuarys() {
    var progress = UserProgress()
    earn(100, at: jst(2026, 12, 31, 23, 59, 59), in: &progress)
    earn(200, at: jst(2027, 1, 1, 0, 0, 0), in: &progress)
    #expect(progress.ledger.lots.lots.map(\.month) == [Month(year: 2026, month: 12), Month(year: 2027, month: 1)])
    let end = jst(2028, 1, 1, 0, 0, 0)
    #expect(progress.ledger.balance(at: end - 1) == 300)
    #expect(progress.ledger.balance(at: end) == 200)
    let written = progress.expire(at: end) { id() }
    #expect(written.map(\.reason) == [.expiry(Month(year: 2026, month: 12))])
    #expect(written.map(\.amount) == [100])
    #expect(written.map(\.date) == [end])
    #expect(progress.ledger.balance == 200)
    #expect(progress.expire(at: end + 86_400) { id() }.isEmpty, "written once")
  }

  @Test mutating func spendingTakesTheOldestPointsFirst() throws {
    var progress = UserProgress()
    earn(1_000, at: jst(2026, 1, 10), in: &progress)
    earn(1_500, at: jst(2026, 2, 10), in: &progress)
    earn(2_000, at: jst(2026, 3, 10), in: &progress)
    // 3,000 pt: all of January's, 1,500 of February's... which is all of it; 500 of March's.
    try progress.requestExchange(ExchangeOption.all[0], id: id(), at: jst(2026, 3, 11))
    #expect(progress.ledger.lots.lots.map(\.remaining) == [0, 0, 1_500])
    #expect(progress.ledger.lots.lots.map(\.earned) == [1_000, 1_500, 2_000], "what was earned stays for the rank")
    // January's and February's ends pass with nothing to expire; March's takes what is left.
    #expect(progress.expire(at: jst(2027, 3, 31)) { id() }.isEmpty)
    let expired = progress.expire(at: jst(2027, 4, 1, 0, 0, 0)) { id() }
    #expect(expired.map(\.amount) == [1_500])
    #expect(progress.ledger.balance == 0)
    #expect(progress.ledger.lots.remaining == progress.ledger.balance)
  }

  @Test mutating func aUserBackAfterTwoYearsSeesEachMonthExpireOnceAndNothingLeft() {
    var progress = UserProgress()
    earn(100, at: jst(2025, 5, 3), in: &progress)
    earn(250, at: jst(2025, 5, 20), in: &progress)
    earn(40, at: jst(2025, 8, 1), in: &progress)
    let back = jst(2027, 6, 1)
    #expect(progress.ledger.balance == 390)
    #expect(progress.ledger.balance(at: back) == 0, "the balance shown leaves expired points out before they are written off")
    let written = progress.expire(at: back) { id() }
    #expect(written.map(\.reason) == [.expiry(Month(year: 2025, month: 5)), .expiry(Month(year: 2025, month: 8))])
    #expect(written.map(\.amount) == [350, 40])
    #expect(written.map(\.date) == [jst(2026, 6, 1, 0, 0, 0), jst(2026, 9, 1, 0, 0, 0)])
    #expect(progress.ledger.balance == 0)
    #expect(progress.expire(at: back + 86_400 * 365) { id() }.isEmpty)
    // Earning again starts a new lot; the old ones, empty and over a year old, are dropped.
    earn(10, at: back, in: &progress)
    #expect(progress.ledger.lots.lots.map(\.month) == [Month(year: 2027, month: 6)])
  }

  @Test mutating func thePointsPageLearnsWhatExpiresInTheNextThreeMonths() {
    var progress = UserProgress()
    earn(450, at: jst(2026, 3, 5), in: &progress)
    earn(80, at: jst(2026, 5, 5), in: &progress)
    earn(70, at: jst(2026, 7, 5), in: &progress)
    let expiring = progress.ledger.lots.expiring(after: jst(2027, 3, 10), months: 3)
    #expect(expiring.map(\.endOf) == [Month(year: 2027, month: 3), Month(year: 2027, month: 5)])
    #expect(expiring.map(\.amount) == [450, 80])
    #expect(expiring.map(\.endOf.label) == ["2027年3月", "2027年5月"])
  }

  @Test mutating func theLotsStayBoundedHoweverLongTheHistory() {
    var progress = UserProgress()
    var date = jst(2026, 1, 1)
    for _ in 0..<(5 * 365) {
      earn(5, at: date, in: &progress)
      progress.expire(at: date) { id() }
      date += 86_400
    }
    #expect(progress.ledger.lots.lots.count <= 13)
    #expect(progress.ledger.lots.remaining == progress.ledger.balance)
    #expect(progress.ledger.totalEarned.subtracting(progress.ledger.totalSpent) == progress.ledger.balance)
  }

  @Test func theRankComesFromTheTwelveMonthsBeforeThisOne() {
    #expect(MemberRank(earned: 2_999) == .bronze)
    #expect(MemberRank(earned: 3_000) == .silver)
    #expect(MemberRank(earned: 9_999) == .silver)
    #expect(MemberRank(earned: 10_000) == .gold)
    #expect(MemberRank(earned: 29_999) == .gold)
    #expect(MemberRank(earned: 30_000) == .platinum)
    #expect(MemberRank.silver.bonus(on: 99) == 2, "3 % of 99 is 2.97: rounded down")
    #expect(MemberRank.platinum.bonus(on: 9) == 0)
    #expect(MemberRank.gold.bonus(on: 40) == 2)
  }

  @Test mutating func aRankIsDecidedAtTheStartOfTheMonthAndPaysItsOwnMovement() {
    var progress = UserProgress()
    earn(3_000, at: jst(2026, 11, 30, 23, 59, 59), in: &progress)
    // Still November: this month's own earnings count from December on.
    #expect(progress.rank(at: jst(2026, 11, 30, 23, 59, 59)) == .bronze)
    #expect(progress.rank(at: jst(2026, 12, 1, 0, 0, 0)) == .silver)
    earn(100, at: jst(2026, 12, 1, 0, 0, 0), in: &progress)
    #expect(progress.ledger.recent.suffix(2).map(\.reason) == [.surveyReward(SurveyID("s1")), .rankBonus(SurveyID("s1"))])
    #expect(progress.ledger.recent.suffix(2).map(\.amount) == [100, 3])
    // Twelve months on the November earnings no longer count.
    #expect(progress.rank(at: jst(2027, 11, 30, 23, 59, 59)) == .silver)
    #expect(progress.rank(at: jst(2027, 12, 1, 0, 0, 0)) == .bronze)
  }
}

extension PointLotsTests {
  @Test func aLedgerSavedBeforeLotsPutsItsBalanceInTheMonthsOfItsNewestCredits() throws {
    // 600 earned over two months, 300 spent: the 300 left are January's newest 200 and 100 of
    // December's; the rank still sees what each month earned.
    let json = #"""
      {"archivedCount": 0, "totalEarned": 600, "totalSpent": 300, "recent": [
        {"id": "00000000-0000-0000-0000-000000000001", "date": "2026-12-05T03:00:00Z", "amount": 400, "reason": {"surveyReward": {"_0": "a"}}},
        {"id": "00000000-0000-0000-0000-000000000002", "date": "2026-12-20T03:00:00Z", "amount": 300, "reason": {"exchange": {"_0": "digital-gift-300"}}},
        {"id": "00000000-0000-0000-0000-000000000003", "date": "2027-01-05T03:00:00Z", "amount": 200, "reason": {"surveyReward": {"_0": "b"}}}
      ]}
      """#
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let ledger = try decoder.decode(PointLedger.self, from: Data(json.utf8))
    #expect(ledger.lots.lots == [
      PointLots.Lot(month: Month(year: 2026, month: 12), earned: 400, remaining: 100),
      PointLots.Lot(month: Month(year: 2027, month: 1), earned: 200, remaining: 200),
    ])
    #expect(ledger.lots.remaining == ledger.balance)
  }

  @Test mutating func aMergedGuestsPointsJoinTheirMonthsAndTheSumsStayEqual() {
    var account = UserProgress()
    earn(1_000, at: jst(2026, 10, 3), in: &account)
    var guest = UserProgress()
    earn(300, at: jst(2026, 9, 3), in: &guest)
    earn(50, at: jst(2026, 10, 9), in: &guest)
    let history = GuestHistory(
      answers: guest.answered, movements: guest.ledger.recent, missions: guest.missions, streak: guest.streak,
      achievements: guest.achievements
    )
    account.absorb(history, on: Day(jst(2026, 10, 10), in: .tokyo), at: jst(2026, 10, 10))
    #expect(account.ledger.lots.lots.map(\.month) == [Month(year: 2026, month: 9), Month(year: 2026, month: 10)])
    #expect(account.ledger.lots.lots.map(\.remaining) == [300, 1_050])
    #expect(account.ledger.lots.remaining == account.ledger.balance)
  }
}

extension PointLotsTests {
  @Test func aGuestsExpiryOfARewardDroppedAsADuplicateTakesNothingFromTheAccount() {
    // Both answered S in January 2025, and both saw it expire; the account holds 1,000 pt of 2026.
    let survey = Survey.fixture(id: "S", reward: 100)
    var account = UserProgress()
    account.recordAnswer(to: survey, with: [], id: TransactionID(UUID(1)), at: jst(2025, 1, 10), on: Day(jst(2025, 1, 10), in: .tokyo))
    account.expire(at: jst(2026, 3, 1)) { TransactionID(UUID(2)) }
    account.recordAnswer(to: .fixture(id: "T", reward: 1_000), with: [], id: TransactionID(UUID(3)), at: jst(2026, 3, 2), on: Day(jst(2026, 3, 2), in: .tokyo))
    var guest = UserProgress()
    guest.recordAnswer(to: survey, with: [], id: TransactionID(UUID(11)), at: jst(2025, 1, 12), on: Day(jst(2025, 1, 12), in: .tokyo))
    guest.expire(at: jst(2026, 3, 1)) { TransactionID(UUID(12)) }
    let history = GuestHistory(answers: guest.answered, movements: guest.ledger.recent, missions: guest.missions, streak: guest.streak, achievements: guest.achievements)
    let report = account.absorb(history, on: Day(jst(2026, 3, 3), in: .tokyo), at: jst(2026, 3, 3))
    #expect(account.ledger.balance == 1_000)
    #expect(report.pointsDeducted == .zero)
    #expect(account.ledger.lots.remaining == account.ledger.balance)
  }

  @Test func aGuestsExpiredPointsThatMoveAreWrittenOffByTheAccountOnce() {
    var guest = UserProgress()
    guest.recordAnswer(to: .fixture(id: "G", reward: 70), with: [], id: TransactionID(UUID(21)), at: jst(2025, 1, 12), on: Day(jst(2025, 1, 12), in: .tokyo))
    guest.expire(at: jst(2026, 3, 1)) { TransactionID(UUID(22)) }
    var account = UserProgress()
    account.recordAnswer(to: .fixture(id: "T", reward: 1_000), with: [], id: TransactionID(UUID(3)), at: jst(2026, 3, 2), on: Day(jst(2026, 3, 2), in: .tokyo))
    let history = GuestHistory(answers: guest.answered, movements: guest.ledger.recent, missions: guest.missions, streak: guest.streak, achievements: guest.achievements)
    account.absorb(history, on: Day(jst(2026, 3, 3), in: .tokyo), at: jst(2026, 3, 3))
    #expect(account.ledger.balance(at: jst(2026, 3, 3)) == 1_000, "the guest's expired 70 pt never count")
    let written = account.expire(at: jst(2026, 3, 3)) { TransactionID(UUID(30)) }
    #expect(written.map(\.amount) == [70])
    #expect(account.ledger.balance == 1_000 && account.ledger.lots.remaining == 1_000)
  }
}
