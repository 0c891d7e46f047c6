/// Text that is never printed: a password or a code carried in an action or a state (a member's
/// password, an operator's second factor, what the console shows once, a mailed link's token).
/// Actions are described where things go wrong (an effect past its deadline is reported with the
/// action that started it), and in the trace of changes (`_printChanges`, `LOG_LEVEL=trace`): both
/// reach the logs.
public struct Secret: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, ExpressibleByStringLiteral {
  public let value: String

  public init(_ value: String) { self.value = value }
  public init(stringLiteral value: String) { self.value = value }

  public var description: String { "<secret>" }
  public var debugDescription: String { "<secret>" }
}

extension Secret: Codable {
  /// Saved as the text itself (a session's record keeps what the console shows once).
  public init(from decoder: any Decoder) throws {
    value = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
}

extension Secret: CustomReflectable {
  /// No fields: a dump (the standard library's, CustomDump's) reflects a value's fields, and
  /// would show the password.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
