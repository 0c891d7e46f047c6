import Foundation
import PointApp
import Testing

/// The support desk's rules on real progress: an adjustment needs a reason and never overdraws;
/// an approval pays an invalid answer once, and only one still held here.
struct SupportRulesTests {
  func progress(_ balance: PointAmount = 1_000) -> UserProgress {
    var ids = 0
    return .answered([.fixture(id: "paid", reward: balance)], ids: &ids)
  }

  @Test func anAdjustmentNeedsAReasonAndAnAmountAndNeverOverdraws() throws {
    var progress = progress()
    let before = progress
    let id = TransactionID(UUID(50))
    #expect(throws: SupportError.reasonRequired) { try progress.adjustPoints(by: 10, reason: " \n ", id: id, at: noon) }
    #expect(throws: SupportError.reasonTooLong) { try progress.adjustPoints(by: 10, reason: String(repeating: "あ", count: 201), id: id, at: noon) }
    #expect(throws: SupportError.invalidAmount) { try progress.adjustPoints(by: 0, reason: "x", id: id, at: noon) }
    #expect(throws: SupportError.invalidAmount) { try progress.adjustPoints(by: 1_000_001, reason: "x", id: id, at: noon) }
    #expect(throws: SupportError.insufficientBalance) { try progress.adjustPoints(by: -1_001, reason: "x", id: id, at: noon) }
    #expect(progress == before)
    try progress.adjustPoints(by: -1_000, reason: String(repeating: "あ", count: 200), id: id, at: noon)
    #expect(progress.ledger.balance == 0)
    try progress.adjustPoints(by: 30, reason: "お詫び", id: TransactionID(UUID(51)), at: noon)
    #expect(progress.ledger.recent.suffix(2).map(\.reason) == [.adjustmentDebit(String(repeating: "あ", count: 200)), .adjustmentCredit("お詫び")])
    #expect(progress.ledger.lots.remaining == progress.ledger.balance)
    #expect(progress.ledger.lots.earned(in: Month(noon)...Month(noon)) == 1_000, "an adjustment is not earned: the rank ignores it")
    #expect(progress.ledger.earnings == 1_000, "nor does 累計獲得")
    #expect(throws: SupportError.alreadyDone) { try progress.adjustPoints(by: 30, reason: "お詫び", id: TransactionID(UUID(51)), at: noon) }
  }

  @Test func anInvalidAnswerIsApprovedOnceAndAnArchivedOneNotAtAll() throws {
    var progress = progress()
    progress.recordInvalid(to: .sweets, with: [], at: noon - 60)
    try progress.approveInvalidAnswer(to: .sweets, id: TransactionID(UUID(60)), at: noon)
    #expect(progress.answer(to: Survey.sweets.id)?.isCompleted == true)
    #expect(progress.answer(to: Survey.sweets.id)?.date == noon - 60, "answered when it was")
    #expect((progress.invalidCount, progress.completedCount) == (0, 2))
    #expect(throws: SupportError.notInvalid) { try progress.approveInvalidAnswer(to: .sweets, id: TransactionID(UUID(61)), at: noon) }
    #expect(throws: SupportError.notInvalid) { try progress.approveInvalidAnswer(to: .breakfast, id: TransactionID(UUID(61)), at: noon) }
    #expect(progress.ledger.recent.filter { $0.reason == .surveyReward(Survey.sweets.id) }.count == 1)

    var archived = UserProgress()
    archived.recordInvalid(to: .sweets, with: [], at: noon - 86_400 * 30)
    for number in 0..<UserProgress.archiveAnswersAt {
      archived.recordAnswer(to: .fixture(id: "s\(number)", reward: 1), with: [], id: TransactionID(UUID(number)), at: noon + Double(number), on: today)
    }
    _ = archived.takeArchivable()
    #expect(throws: SupportError.archived) { try archived.approveInvalidAnswer(to: .sweets, id: TransactionID(UUID(99)), at: noon) }
  }
}
