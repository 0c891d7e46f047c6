import Foundation
@testable import PointAppWeb
import Testing

/// The second factor's pieces on their own: RFC 6238's codes, the secret as typed, the QR code
/// an authenticator app reads.
struct TOTPTests {
  /// RFC 6238, appendix B, SHA-1 (its 8-digit codes; 6 digits are their last six).
  @Test(arguments: [
    (59, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
    (2_000_000_000, "279037"), (20_000_000_000, "353130"),
  ] as [(TimeInterval, String)])
  func theRFCsTestVectors(time: TimeInterval, code: String) {
    let totp = TOTP(secret: Data("12345678901234567890".utf8))
    #expect(totp.code(at: TOTP.step(at: Date(timeIntervalSince1970: time))) == code)
  }

  @Test func aCodeIsTakenOneStepEitherWayAndNeverTwice() throws {
    let totp = TOTP(secret: Data("12345678901234567890".utf8))
    let now = Date(timeIntervalSince1970: 1_111_111_111)
    let step = TOTP.step(at: now)
    for offset: Int64 in [-1, 0, 1] {
      #expect(totp.acceptedStep(totp.code(at: step + offset), at: now, after: nil) == step + offset)
    }
    #expect(totp.acceptedStep(totp.code(at: step - 2), at: now, after: nil) == nil, "two steps late")
    #expect(totp.acceptedStep(totp.code(at: step + 2), at: now, after: nil) == nil, "two steps early")
    #expect(totp.acceptedStep(totp.code(at: step), at: now, after: step) == nil, "the step used already")
    #expect(totp.acceptedStep(totp.code(at: step - 1), at: now, after: step) == nil, "an older step than the one used")
    #expect(totp.acceptedStep(totp.code(at: step + 1), at: now, after: step) == step + 1)
    let spaced = totp.code(at: step).prefix(3) + " " + totp.code(at: step).dropFirst(3)
    #expect(totp.acceptedStep(String(spaced), at: now, after: nil) == step, "as an app shows it, with a space")
    for typed in ["", "12345", "1234567", "abcdef", "１２３４５６"] {
      #expect(totp.acceptedStep(typed, at: now, after: nil) == nil)
    }
  }

  @Test func theSecretIsBase32AsAppsTakeIt() throws {
    #expect(Base32.encode(Data("12345678901234567890".utf8)) == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    #expect(Base32.encode(Data("f".utf8)) == "MY" && Base32.encode(Data("foobar".utf8)) == "MZXW6YTBOI")
    let secret = TOTP.newSecret()
    #expect(secret.count == 20)
    #expect(Base32.decode(Base32.encode(secret)) == secret)
    #expect(Base32.decode("gezd gnbv") == Base32.decode("GEZDGNBV"))
    #expect(Base32.grouped("GEZDGNBVGY") == "GEZD GNBV GY")
    let uri = TOTP.uri(secret: Data("12345678901234567890".utf8), account: "ops@example.jp")
    #expect(uri == "otpauth://totp/PointApp:ops%40example.jp?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=PointApp&algorithm=SHA1&digits=6&period=30")
  }
}

/// The QR code against another encoder's: python-qrcode 8.2 drew each fixture
/// (`Fixtures/qr/v<version>-mask<mask>.txt`: the text, then the modules, `#` dark) at level M
/// with the same mask. Versions 1, 6, 9 and 10: one block and many, with and without version
/// information, an 8- and a 16-bit count.
struct QRCodeTests {
  static let fixtures = ["v1-mask3", "v6-mask6", "v9-mask2", "v10-mask5"]

  @Test(arguments: fixtures)
  func matchesAnotherEncoderModuleForModule(name: String) throws {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Fixtures/qr"))
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    let (version, mask) = (Int(name.dropFirst().prefix { $0 != "-" })!, Int(String(name.last!))!)
    let code = try #require(QRCode(Data(lines[0].utf8), mask: mask))
    #expect(code.version == version)
    let drawn = code.modulesText
    #expect(drawn == Array(lines.dropFirst()), "\(name)")
  }

  @Test func theMaskOfLeastPenaltyIsChosenAndTheImageIsAnSVG() throws {
    let code = try #require(QRCode(Data("otpauth://totp/PointApp:ops%40example.jp?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ".utf8)))
    #expect((0..<8).contains(code.mask))
    #expect(code.svg().hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(code.size + 8) \#(code.size + 8)""#))
    #expect(code.dataURL().hasPrefix("data:image/svg+xml;base64,"))
    #expect(QRCode(Data(repeating: 0x41, count: 214)) == nil, "more than version 10 holds")
  }
}

extension QRCode {
  var modulesText: [String] {
    modules.map { row in String(row.map { $0 ? "#" : "." }) }
  }
}
