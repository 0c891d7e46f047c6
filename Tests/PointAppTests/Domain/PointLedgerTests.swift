import Dependencies
import Foundation
import PointApp
import Testing

struct PointLedgerTests {
  @Test func balanceIsDerivedFromEveryMovement() {
    var ids = 0
    let progress = UserProgress.answered([.breakfast, .sweets], ids: &ids)
    #expect(progress.ledger.transactions.map(\.amount) == [40, 60])
    #expect(progress.ledger.balance == 100)
    #expect(progress.ledger.totalEarned == 100)
  }

  @Test func anExchangeDebitsAndCanNeverOverdraw() throws {
    var ids = 0
    var progress = UserProgress.answered([.fixture(id: "big", reward: 3_500)], ids: &ids)
    let gift = ExchangeOption.all[0]
    try progress.exchange(gift, id: TransactionID(UUID(100)), at: noon)
    #expect(progress.ledger.balance == 500)
    #expect(progress.ledger.totalEarned == 3_500)

    let before = progress
    #expect(throws: PointError.insufficientBalance) {
      try progress.exchange(gift, id: TransactionID(UUID(101)), at: noon)
    }
    #expect(progress == before)
  }

  @Test func historyPagesHoldTwentyNewestFirst() {
    var ids = 0
    let surveys = (0..<45).map { Survey.fixture(id: String(format: "s%02d", $0), reward: 1) }
    let ledger = UserProgress.answered(surveys, ids: &ids).ledger

    let first = ledger.page(1)
    #expect(first.pageCount == 3)
    #expect(first.transactions.count == 20)
    #expect(first.transactions.first?.reason == .surveyReward(SurveyID("s44")))
    #expect(!first.hasPrevious && first.hasNext)

    let last = ledger.page(3)
    #expect(last.transactions.map(\.reason) == (0..<5).reversed().map { .surveyReward(SurveyID(String(format: "s%02d", $0))) })
    #expect(last.hasPrevious && !last.hasNext)
  }

  @Test func pagesPastEitherEndAreTheNearestPage() {
    var ids = 0
    let ledger = UserProgress.answered((0..<21).map { Survey.fixture(id: "s\($0)") }, ids: &ids).ledger
    #expect(ledger.page(0).number == 1)
    #expect(ledger.page(-5).number == 1)
    #expect(ledger.page(3).number == 2)
    #expect(ledger.page(Int.max).number == 2)
    #expect(ledger.page(2).transactions.count == 1)
  }

  @Test func anEmptyLedgerHasOneEmptyPage() {
    let page = PointLedger().page(4)
    #expect(page == LedgerPage(number: 1, pageCount: 1, transactions: []))
  }
}
