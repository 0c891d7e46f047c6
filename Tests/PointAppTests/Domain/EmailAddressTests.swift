import Foundation
import PointApp
import Testing

struct EmailAddressTests {
  @Test func trimsAndLowercasesSoTheSameAddressComparesEqual() {
    let typed = EmailAddress("  Taro.Yamada@Example.CO.JP \n")
    #expect(typed?.value == "taro.yamada@example.co.jp")
    #expect(typed == EmailAddress("taro.yamada@example.co.jp"))
  }

  @Test(arguments: ["taro.example.com", "taro@@example.com", "taro@home@example.com", ""])
  func refusesAnythingWithoutExactlyOneAt(_ raw: String) {
    #expect(EmailAddress(raw) == nil)
  }

  @Test(arguments: ["@example.com", "taro@", "taro@localhost", "taro@.example.com", "taro@example.com.", "taro@."])
  func refusesAnEmptyPartOrADomainWithoutAnInnerDot(_ raw: String) {
    #expect(EmailAddress(raw) == nil)
  }

  @Test(arguments: [
    "taro yamada@example.com", "taro@exam\tple.com", "taro\n@example.com", "taro\u{3000}@example.com",
    "taro\u{0}@example.com", "taro@example.com\u{7}", "ta\u{200B}ro@example.com", "taro@example\u{202E}.com",
  ])
  func refusesWhitespaceAndInvisibleCharactersInside(_ raw: String) {
    #expect(EmailAddress(raw) == nil)
  }

  @Test func acceptsAddressesInOtherScripts() {
    #expect(EmailAddress("山田@例え.jp")?.value == "山田@例え.jp")
  }

  @Test func refusesMoreThan254BytesOnceTrimmed() {
    let domain = "@example.com"
    let longest = String(repeating: "a", count: 254 - domain.count) + domain
    #expect(EmailAddress(" \(longest) ")?.value == longest)
    #expect(EmailAddress("a" + longest) == nil)
    // "é" is one character but two bytes in UTF-8, the unit mail servers count.
    #expect(EmailAddress("é" + longest.dropFirst()) == nil)
  }

  @Test func isCodedAsOneStringCheckedOnTheWayIn() throws {
    let address = try #require(EmailAddress("taro@example.com"))
    #expect(String(decoding: try JSONEncoder().encode([address]), as: UTF8.self) == #"["taro@example.com"]"#)
    #expect(try JSONDecoder().decode([EmailAddress].self, from: Data(#"[" Taro@Example.com"]"#.utf8)) == [address])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([EmailAddress].self, from: Data(#"["taro@localhost"]"#.utf8))
    }
  }
}
