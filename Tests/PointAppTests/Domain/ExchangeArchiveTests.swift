import Foundation
import PointApp
import Testing

/// Old exchange requests move to the user's archive in whole segments, so that the state stays
/// bounded while `/exchange/history` lists every request; the limits never lose a request they count.
struct ExchangeArchiveTests {
  @Test func endedRequestsOfPastMonthsMoveInWholeSegmentsLeavingTheNewestTwenty() throws {
    var ids = 100
    // 45 requests, one every four days from 2026-11-22: the newest five are in May 2027.
    let all = UserProgress.exchanged(45, ids: &ids)
    var progress = all
    let taken = progress.takeArchivable().exchanges
    #expect(taken == [ExchangeSegment(start: 0, requests: Array(all.exchanges[0..<20]))])
    #expect(progress.exchanges == Array(all.exchanges[20...]))
    #expect(progress.archivedExchangeCount == 20)
    #expect(progress.exchangeCount == 45)
    #expect(progress.exchangeRequest(20) == nil)
    #expect(progress.heldExchanges(18..<23).map(\.number) == [21, 22, 23])
    // Nothing more until twenty newer ones stay behind a whole segment.
    let again = progress.takeArchivable().exchanges
    #expect(again.isEmpty)
    var grown = UserProgress.exchanged(60, ids: &ids)
    let both = grown.takeArchivable().exchanges
    #expect(both.map(\.start) == [0, 20])
    #expect(grown.exchanges.map(\.number) == Array(41...60))
  }

  @Test func aPendingRequestKeepsItsSegmentAndEveryLaterOneHere() throws {
    var ids = 100
    var progress = UserProgress.exchanged(45, leavingPending: [3], ids: &ids)
    let blocked = progress.takeArchivable().exchanges
    #expect(blocked.isEmpty)
    #expect(progress.exchanges.count == 45)
    let failed = progress.failExchange(3, refundID: TransactionID(UUID(999)), at: noon + days(200))
    #expect(failed)
    let freed = progress.takeArchivable().exchanges
    #expect(freed.map(\.start) == [0])
    #expect(progress.archivedExchangeCount == 20)
  }

  @Test func theNewestRequestsMonthStaysWholeSoTheLimitsStillCountIt() throws {
    // Refused requests do not count in the limits, so a month can hold any number of them.
    var ids = 100
    var progress = UserProgress.answered([.fixture(reward: 3_000)], ids: &ids)
    let gift = ExchangeOption.all[0]
    for second in 0..<44 {
      let request = try progress.requestExchange(gift, id: TransactionID(UUID(ids)), at: noon + Double(second))
      ids += 1
      _ = progress.failExchange(request.number, refundID: TransactionID(UUID(ids)), at: noon + Double(second))
      ids += 1
    }
    let request = try progress.requestExchange(gift, id: TransactionID(UUID(ids)), at: noon + 50)
    _ = progress.fulfilExchange(request.number, with: GiftCode("KEPT"), at: noon + 50)
    let usage = progress.exchangeUsage(at: noon + 60)
    let taken = progress.takeArchivable().exchanges
    #expect(taken.isEmpty, "all 45 are in the newest request's month")
    #expect(progress.exchanges.count == 45)
    #expect(progress.exchangeUsage(at: noon + 60) == usage)
    #expect(progress.exchangeRefusal(gift, at: noon + 60) == .dailyLimit)
    #expect(usage.today == 1)
  }

  @Test func archivingChangesNoLimitNorBalance() throws {
    var ids = 100
    let all = UserProgress.exchanged(45, ids: &ids)
    var progress = all
    _ = progress.takeArchivable()
    let newest = try #require(all.exchanges.last).requestedAt
    for date in [newest, newest + days(1), newest + days(30)] {
      #expect(progress.exchangeUsage(at: date) == all.exchangeUsage(at: date))
      #expect(progress.exchangeRefusal(.all[0], at: date) == all.exchangeRefusal(.all[0], at: date))
    }
    #expect(progress.ledger.balance(at: newest) == all.ledger.balance(at: newest))
  }
}
