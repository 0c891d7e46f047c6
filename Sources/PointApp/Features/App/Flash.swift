/// A one-shot message shown on the next page a user sees: the web's alert.
public struct Flash: Codable, Equatable, Sendable {
  public enum Kind: String, Codable, Sendable {
    case success, error
  }

  public let kind: Kind
  public let message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}
