import Foundation
import PointApp
import Testing

struct PasswordTests {
  /// `count` characters that are on no list of common passwords.
  func uncommon(_ count: Int) -> String {
    String(String(repeating: "kq3vz8wm", count: count / 8 + 1).prefix(count))
  }

  @Test func eightTo128CharactersAreAccepted() {
    #expect(PasswordPolicy.problem(with: uncommon(7)) == .tooShort)
    #expect(PasswordPolicy.problem(with: uncommon(8)) == nil)
    #expect(PasswordPolicy.problem(with: uncommon(128)) == nil)
    #expect(PasswordPolicy.problem(with: uncommon(129)) == .tooLong)
  }

  @Test func lengthCountsCharactersNotBytes() {
    #expect(PasswordPolicy.problem(with: "ねこがすきです") == .tooShort, "7 characters, 21 bytes")
    #expect(PasswordPolicy.problem(with: "ねこがすきですか") == nil)
    let family = "👨‍👩‍👧‍👦"
    #expect(PasswordPolicy.problem(with: String(repeating: family, count: 7)) == .tooShort, "7 characters, 49 scalars")
    #expect(PasswordPolicy.problem(with: String(repeating: family, count: 8)) == nil)
    #expect(PasswordPolicy.problem(with: String(repeating: "あ", count: 129)) == .tooLong)
  }

  @Test func noCompositionRules() {
    #expect(PasswordPolicy.problem(with: "correct horse battery staple") == nil)
    #expect(PasswordPolicy.problem(with: "zkqwmvtrbx") == nil, "letters only")
  }

  @Test(arguments: ["password", "PassWord1", "12345678", "qwertyuiop", "iloveyou", "Sakura2024", "doraemon", "pointapp123"])
  func commonPasswordsAreRefusedWhateverTheirCase(_ password: String) {
    #expect(PasswordPolicy.problem(with: password) == .common)
  }

  @Test func theShippedListHoldsLowercaseEntriesOfUsableLengthAndEachIsRefused() throws {
    let file = URL(filePath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appending(path: "Sources/PointApp/Resources/common-passwords.txt")
    let entries = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(entries.count >= 1_000)
    #expect(Set(entries).count == entries.count)
    #expect(entries.filter { $0 != $0.lowercased() || !(8...128).contains($0.count) } == [])
    #expect(entries.filter { PasswordPolicy.problem(with: $0) != .common } == [], "the bundled copy is loaded whole")
  }

  @Test func messagesAreJapaneseSentences() {
    #expect(PasswordProblem.tooShort.message == "パスワードは8文字以上にしてください。")
    #expect(PasswordProblem.tooLong.message == "パスワードは128文字以内にしてください。")
    #expect(PasswordProblem.common.message == "よく使われているパスワードです。推測されにくいものにしてください。")
  }
}
