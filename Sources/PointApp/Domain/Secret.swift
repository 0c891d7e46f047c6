/// Text that is never printed: a password carried in an action. Actions are described where
/// things go wrong (an effect past its deadline is reported with the action that started it),
/// and those descriptions reach the logs.
public struct Secret: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, ExpressibleByStringLiteral {
  public let value: String

  public init(_ value: String) { self.value = value }
  public init(stringLiteral value: String) { self.value = value }

  public var description: String { "<secret>" }
  public var debugDescription: String { "<secret>" }
}
