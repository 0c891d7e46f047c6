/// An anonymous user's id: 128 random bits as 32 lowercase hex digits. It names the user's file,
/// so anything else a cookie may carry is refused before it gets near a path.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  /// `nil` unless `rawValue` is exactly 32 lowercase hex digits.
  public init?(_ rawValue: some StringProtocol) {
    guard rawValue.utf8.count == 32,
      rawValue.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
    else { return nil }
    self.rawValue = String(rawValue)
  }

  /// A new random id.
  public static func random() -> SessionID {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return SessionID(hex(bytes))!
  }

  public var description: String { rawValue }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
  let digits = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  for byte in bytes {
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0x0f)])
  }
  return String(decoding: out, as: UTF8.self)
}
