import Foundation
import Hummingbird

/// A decoded `application/x-www-form-urlencoded` body: its fields in order, repeated names kept.
///
/// Parsed here rather than with Hummingbird's `URLEncodedFormDecoder`: answer forms have one field
/// per question, named by the catalog's question ids, which a fixed `Decodable` cannot describe,
/// and that decoder answers a bad escape or a broken key with a 500. Here anything malformed is a
/// 400 and nothing else.
public struct FormBody: Sendable {
  public let fields: [(name: String, value: String)]

  /// The most fields a form may carry; more is not a form a page of ours sends (the survey
  /// editor's, a whole survey, may carry more: it says so).
  public static let maxFields = 200

  /// Parses a body; throws 400 for bad percent escapes, bad UTF-8 or more than `maxFields` fields.
  public init(parsing body: String, maxFields: Int = Self.maxFields) throws(HTTPError) {
    var fields: [(String, String)] = []
    for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
      guard fields.count < maxFields else { throw HTTPError(.badRequest, message: "too many form fields") }
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = Self.decode(parts[0]), !name.isEmpty,
        let value = Self.decode(parts.count > 1 ? parts[1] : "")
      else { throw HTTPError(.badRequest, message: "malformed form field") }
      fields.append((name, value))
    }
    self.fields = fields
  }

  /// Reads and parses a request's body, which must be a form of at most `limit` bytes (413 above).
  public init(request: Request, limit: Int, maxFields: Int = Self.maxFields) async throws {
    let contentType = request.headers[.contentType]?.lowercased() ?? ""
    guard contentType.hasPrefix("application/x-www-form-urlencoded") else {
      throw HTTPError(.unsupportedMediaType, message: "expected a form")
    }
    let buffer = try await request.body.collect(upTo: limit)
    guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
      throw HTTPError(.badRequest, message: "form is not UTF-8")
    }
    try self.init(parsing: text, maxFields: maxFields)
  }

  /// The single value of a field; 400 when it is missing or repeated.
  /// The field `name` when sent once, `nil` when not sent; sent more than once is a 400.
  public func optionalValue(_ name: String) throws(HTTPError) -> String? {
    fields.contains { $0.name == name } ? try value(name) : nil
  }

  public func value(_ name: String) throws(HTTPError) -> String {
    let values = fields.filter { $0.name == name }
    guard values.count == 1 else { throw HTTPError(.badRequest, message: "expected one \(name) field") }
    return values[0].value
  }

  /// `+` is a space and `%XX` a byte; a broken escape or bytes that are not UTF-8 give `nil`.
  private static func decode(_ component: Substring) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(component.utf8.count)
    var input = component.utf8.makeIterator()
    while let byte = input.next() {
      switch byte {
      case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
      case UInt8(ascii: "%"):
        guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else { return nil }
        bytes.append(high << 4 | low)
      default: bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
