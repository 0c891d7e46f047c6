/// 128 random bits as 32 lowercase hex digits. A `UserID` names a user's files and a `SessionID`
/// a session's record, so anything else a cookie may carry is refused before it gets near a path.
/// The two never stand for each other: a cookie carries a session, and a session leads to a user.
public struct RandomID<Kind>: Hashable, Sendable, CustomStringConvertible {
  public let rawValue: String

  /// `nil` unless `rawValue` is exactly 32 lowercase hex digits.
  public init?(_ rawValue: some StringProtocol) {
    guard rawValue.utf8.count == 32,
      rawValue.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
    else { return nil }
    self.rawValue = String(rawValue)
  }

  /// A new random id.
  public static func random() -> Self {
    Self(hex(randomBytes(16)))!
  }

  public var description: String { rawValue }
}

extension RandomID: Codable {
  public init(from decoder: any Decoder) throws {
    let raw = try decoder.singleValueContainer().decode(String.self)
    guard let id = Self(raw) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not 32 hex digits"))
    }
    self = id
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

public enum UserKind {}
public enum SessionKind {}
/// Whose data: the name of a user's files.
public typealias UserID = RandomID<UserKind>
/// A session: what the session cookie carries.
public typealias SessionID = RandomID<SessionKind>

/// `count` bytes from the system's secure generator, eight a call (a call each was sixteen
/// `getrandom` system calls for an id).
func randomBytes(_ count: Int) -> [UInt8] {
  var generator = SystemRandomNumberGenerator()
  var bytes: [UInt8] = []
  bytes.reserveCapacity(count + 7)
  while bytes.count < count {
    withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
  }
  bytes.removeLast(bytes.count - count)
  return bytes
}

/// Whether a secret given equals the one expected, in a time that does not tell how much of it
/// matched.
func constantTimeEqual(_ expected: some StringProtocol, _ given: some StringProtocol) -> Bool {
  let (a, b) = (Array(expected.utf8), Array(given.utf8))
  guard a.count == b.count else { return false }
  return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
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
