import Crypto
import Foundation

/// Time-based one-time passwords as RFC 6238 defines them and authenticator apps make them:
/// HMAC-SHA-1 of the number of 30-second steps since 1970, truncated to 6 digits.
struct TOTP: Sendable {
  static let digits = 6
  static let period: TimeInterval = 30
  /// One step either way: a phone's clock a little off, or a code typed as it changed.
  static let drift: Int64 = 1

  let secret: Data

  /// The step `date` falls in.
  static func step(at date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 / period).rounded(.down))
  }

  /// The code of `step`, `digits` long with leading zeros.
  func code(at step: Int64) -> String {
    var counter = UInt64(bitPattern: step).bigEndian
    let message = withUnsafeBytes(of: &counter) { Data($0) }
    let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
    // Dynamic truncation (RFC 4226, 5.3): four bytes from the offset the last nibble names.
    let offset = Int(mac[mac.count - 1] & 0x0F)
    let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
    let code = String(value % 1_000_000)
    return String(repeating: "0", count: Self.digits - code.count) + code
  }

  /// The step whose code `typed` is, within the drift around `date`, and after `lastUsed` (a
  /// code once accepted is refused if sent again); `nil` when it is none.
  func acceptedStep(_ typed: String, at date: Date, after lastUsed: Int64?) -> Int64? {
    let typed = typed.filter { !$0.isWhitespace }
    guard typed.count == Self.digits, typed.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
    let now = Self.step(at: date)
    for step in (now - Self.drift)...(now + Self.drift) where step > (lastUsed ?? .min) {
      if constantTimeEqual(code(at: step), typed) { return step }
    }
    return nil
  }

  /// A new secret: 20 random bytes, as RFC 4226 recommends for SHA-1.
  static func newSecret() -> Data {
    Data(randomBytes(20))
  }

  /// The URI authenticator apps read (from the QR code): `otpauth://totp/PointApp:<address>?…`.
  static func uri(secret: Data, account: String, issuer: String = "PointApp") -> String {
    let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: .otpauthLabel) ?? account
    let name = issuer.addingPercentEncoding(withAllowedCharacters: .otpauthLabel) ?? issuer
    return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(name)&algorithm=SHA1&digits=\(digits)&period=\(Int(period))"
  }
}

extension CharacterSet {
  /// Unreserved characters and the label's colon; everything else (the address's @) is escaped.
  fileprivate static let otpauthLabel = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:")
}

/// RFC 4648 base 32, upper case without padding: how authenticator apps take a secret typed by hand.
enum Base32 {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

  static func encode(_ data: Data) -> String {
    var output = ""
    var buffer = 0
    var bits = 0
    for byte in data {
      buffer = (buffer << 8) | Int(byte)
      bits += 8
      while bits >= 5 {
        output.append(alphabet[(buffer >> (bits - 5)) & 31])
        bits -= 5
      }
      buffer &= (1 << bits) - 1
    }
    if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
    return output
  }

  static func decode(_ text: String) -> Data? {
    var output = Data()
    var buffer = 0
    var bits = 0
    for character in text.uppercased() where character != "=" && !character.isWhitespace {
      guard let value = alphabet.firstIndex(of: character) else { return nil }
      buffer = (buffer << 5) | value
      bits += 5
      if bits >= 8 {
        output.append(UInt8((buffer >> (bits - 8)) & 0xFF))
        bits -= 8
      }
      buffer &= (1 << bits) - 1
    }
    return output
  }

  /// The secret in groups of four, as a person types it.
  static func grouped(_ text: String) -> String {
    stride(from: 0, to: text.count, by: 4).map { start in
      String(text.dropFirst(start).prefix(4))
    }.joined(separator: " ")
  }
}
