/// Text that is never printed: a password carried in an action. Actions are described where
/// things go wrong (an effect past its deadline is reported with the action that started it),
/// and in the trace of changes (`_printChanges`, `LOG_LEVEL=trace`): both reach the logs.
public struct Secret: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, ExpressibleByStringLiteral {
  public let value: String

  public init(_ value: String) { self.value = value }
  public init(stringLiteral value: String) { self.value = value }

  public var description: String { "<secret>" }
  public var debugDescription: String { "<secret>" }
}

extension Secret: CustomReflectable {
  /// No fields: a dump (the standard library's, CustomDump's) reflects a value's fields, and
  /// would show the password.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}
