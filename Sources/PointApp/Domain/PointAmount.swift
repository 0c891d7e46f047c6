/// A number of points: never negative. 10 pt are worth 1 yen.
public struct PointAmount: Hashable, Comparable, Sendable {
  public let value: Int

  /// `nil` for a negative value.
  public init?(_ value: Int) {
    guard value >= 0 else { return nil }
    self.value = value
  }

  public static let zero: PointAmount = 0

  public func adding(_ other: PointAmount) -> PointAmount {
    PointAmount(value + other.value)!
  }

  /// `nil` when `other` is larger: points cannot go below zero.
  public func subtracting(_ other: PointAmount) -> PointAmount? {
    PointAmount(value - other.value)
  }

  /// What the points are worth in yen, rounded down.
  public var yen: Int { value / 10 }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }
}

extension PointAmount: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let value = try container.decode(Int.self)
    guard let amount = PointAmount(value) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "negative points: \(value)")
    }
    self = amount
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

extension PointAmount: ExpressibleByIntegerLiteral {
  /// For literals in code and tests; a negative literal is a programming error.
  public init(integerLiteral value: Int) {
    guard let amount = PointAmount(value) else { preconditionFailure("negative points: \(value)") }
    self = amount
  }
}

extension PointAmount: CustomStringConvertible {
  /// "1,234pt"
  public var description: String { "\(Self.grouped(value))pt" }

  /// A whole number with its thousands separated by commas, as Japanese readers write amounts
  /// (12,345), whatever the server's locale; written out because it is on every page.
  public static func grouped(_ number: Int) -> String {
    let digits = Array(String(number.magnitude).utf8)
    var text = number < 0 ? "-" : ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
      text.unicodeScalars.append(Unicode.Scalar(digit))
    }
    return text
  }
}
