import Foundation

/// An account's email address, in the one form the product stores and compares: trimmed and
/// lowercased, since people type the same address with varying case and stray spaces.
///
/// The check is deliberately loose: only a message that arrives proves an address, so this refuses
/// only what cannot be one (a typo such as a missing "@" or a domain without a dot) and accepts
/// everything else, including addresses in other scripts.
public struct EmailAddress: Hashable, Sendable {
  public let value: String

  /// The longest address mail can be sent to: SMTP's 256-octet path minus its angle brackets.
  /// Counted in UTF-8 bytes, as mail servers count it.
  public static let maxLength = 254

  /// `nil` when `raw` cannot be an address.
  public init?(_ raw: String) {
    let address = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    let parts = address.split(separator: "@", omittingEmptySubsequences: false)
    guard
      address.utf8.count <= Self.maxLength,
      !address.unicodeScalars.contains(where: Self.isForbidden),
      parts.count == 2,
      let local = parts.first, let domain = parts.last,
      !local.isEmpty,
      domain.contains("."), !domain.hasPrefix("."), !domain.hasSuffix(".")
    else { return nil }
    value = address
  }

  /// For a message to another address: the first character of the local part and the domain
  /// (`h•••@example.jp`).
  public var masked: String {
    let parts = value.split(separator: "@", maxSplits: 1)
    return "\(parts[0].prefix(1))•••@\(parts.count > 1 ? parts[1] : "")"
  }

  /// Whitespace and invisible characters (controls, zero-width and direction marks) inside an
  /// address are pasting accidents, never part of it.
  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    CharacterSet.whitespacesAndNewlines.contains(scalar) || CharacterSet.controlCharacters.contains(scalar)
  }
}

extension EmailAddress: Codable {
  /// Reads the single string it was written as, checked again like typed input. The error leaves
  /// the text out: it is personal data, and errors reach logs.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let raw = try container.decode(String.self)
    guard let address = EmailAddress(raw) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an email address")
    }
    self = address
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}
