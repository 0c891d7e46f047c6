import Foundation
import PointApp
import Testing

struct PointAmountTests {
  @Test func neverNegative() {
    let negative = -1
    #expect(PointAmount(negative) == nil)
    #expect(PointAmount(0) == .zero)
  }

  @Test func addsAndSubtractsWithoutGoingBelowZero() {
    let hundred: PointAmount = 100
    #expect(hundred.adding(50) == 150)
    #expect(hundred.subtracting(40) == 60)
    #expect(hundred.subtracting(101) == nil)
  }

  @Test func tenPointsAreOneYenRoundedDown() {
    #expect(PointAmount(1_234).yen == 123)
    #expect(PointAmount(9).yen == 0)
  }

  @Test func readsAsGroupedPoints() {
    #expect(PointAmount(12_345).description == "12,345pt")
    #expect(PointAmount(0).description == "0pt")
    #expect(PointAmount(999).description == "999pt")
    #expect(PointAmount(1_000).description == "1,000pt")
    #expect(PointAmount(1_234_567).description == "1,234,567pt")
    #expect(PointAmount.grouped(-1_234) == "-1,234")
  }

  @Test func decodingRefusesNegativeAmounts() throws {
    #expect(try JSONDecoder().decode([PointAmount].self, from: Data("[7]".utf8)) == [7])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([PointAmount].self, from: Data("[-7]".utf8))
    }
  }
}
