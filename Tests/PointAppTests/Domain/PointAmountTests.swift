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
  }

  @Test func decodingRefusesNegativeAmounts() throws {
    #expect(try JSONDecoder().decode([PointAmount].self, from: Data("[7]".utf8)) == [7])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([PointAmount].self, from: Data("[-7]".utf8))
    }
  }
}
