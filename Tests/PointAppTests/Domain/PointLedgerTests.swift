import Dependencies
import Foundation
import PointApp
import Testing

struct PointLedgerTests {
  /// A ledger of `count` one-point rewards for surveys s0, s1, …, one a minute.
  func ledger(_ count: Int) -> PointLedger {
    var progress = UserProgress()
    for number in 0..<count {
      let date = noon + Double(number) * 60
      progress.recordAnswer(
        to: .fixture(id: "s\(number)", reward: 1), with: [], id: TransactionID(UUID(number)), at: date, on: today
      )
    }
    return progress.ledger
  }

  @Test func balanceAndTotalsFollowEveryMovement() {
    var ids = 0
    let progress = UserProgress.answered([.breakfast, .sweets], ids: &ids)
    #expect(progress.ledger.recent.map(\.amount) == [40, 60])
    #expect(progress.ledger.balance == 100)
    #expect(progress.ledger.totalEarned == 100)
    #expect(progress.ledger.count == 2)
  }

  @Test func anExchangeDebitsAndCanNeverOverdraw() throws {
    var ids = 0
    var progress = UserProgress.answered([.fixture(id: "big", reward: 3_500)], ids: &ids)
    let gift = ExchangeOption.all[0]
    try progress.requestExchange(gift, id: TransactionID(UUID(100)), at: noon)
    #expect(progress.ledger.balance == 500)
    #expect(progress.ledger.totalEarned == 3_500)
    #expect(progress.ledger.totalSpent == 3_000)

    let before = progress
    #expect(throws: PointError.insufficientBalance) {
      try progress.requestExchange(gift, id: TransactionID(UUID(101)), at: noon + 86_400)
    }
    #expect(progress == before)
  }

  @Test func pagesSpanTwentyMovementsFromTheNewest() {
    let ledger = ledger(45)
    #expect(ledger.pageSpan(1) == PageSpan(number: 1, pageCount: 3, numbers: 25..<45))
    #expect(ledger.pageSpan(2).numbers == 5..<25)
    #expect(ledger.pageSpan(3).numbers == 0..<5)
    #expect(ledger.held(0..<5).map(\.reason) == (0..<5).map { .surveyReward(SurveyID("s\($0)")) })
  }

  @Test func pagesPastEitherEndAreTheNearestPage() {
    let ledger = ledger(21)
    #expect(ledger.pageSpan(0).number == 1)
    #expect(ledger.pageSpan(-5).number == 1)
    #expect(ledger.pageSpan(3).number == 2)
    #expect(ledger.pageSpan(Int.max).number == 2)
    #expect(ledger.pageSpan(2).numbers == 0..<1)
  }

  @Test func anEmptyLedgerHasOneEmptyPage() {
    let span = PointLedger().pageSpan(4)
    #expect(span == PageSpan(number: 1, pageCount: 1, numbers: 0..<0))
  }

  @Test func nothingIsArchivedUntilAWholeSegmentCanLeaveAndFiveStay() {
    var short = ledger(24)
    let segments = short.takeArchivable()
    #expect(segments.isEmpty)
    #expect(short.recent.count == 24)
  }

  @Test func oldMovementsLeaveInWholeSegmentsAndTheTotalsStay() {
    let full = ledger(175)
    var ledger = full
    let segments = ledger.takeArchivable()
    #expect(segments.map(\.start) == Array(stride(from: 0, to: 160, by: 20)))
    #expect(segments.allSatisfy { $0.transactions.count == 20 })
    #expect(segments.flatMap(\.transactions) + ledger.recent == full.recent)
    #expect(ledger.archivedCount == 160)
    #expect(ledger.recent.count == 15)
    #expect((ledger.count, ledger.balance, ledger.totalEarned) == (175, 175, 175))
    #expect(ledger.held(150..<170).count == 10, "only the movements still held are given")
    let again = ledger.takeArchivable()
    #expect(again.isEmpty, "archiving twice moves nothing more")
  }

  @Test func aFileWhoseArchiveIsNotWholeSegmentsIsRefused() {
    let json = #"{"archivedCount": 7, "recent": [], "totalEarned": 0, "totalSpent": 0}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(PointLedger.self, from: Data(json.utf8)) }
  }
}
