import Foundation

/// A message a feature asks to be sent. A reducer puts it in the state (`AppFeature.State.outbox`,
/// never saved); the web layer writes it with the same save as the change that asked for it, and
/// a worker delivers it once.
public struct MailRequest: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    /// The link that proves the address is the member's: `token` opens it until `expires`.
    case addressVerification(token: String, expires: Date)
  }

  public let to: EmailAddress
  public let kind: Kind

  public init(to: EmailAddress, _ kind: Kind) {
    self.to = to
    self.kind = kind
  }
}

/// The signed-in account's address as the site knows it: set by the web layer from the account
/// on each request, never saved with the user.
public struct AddressStatus: Equatable, Sendable {
  public var verifiedAt: Date?
  /// When its latest verification links were sent, oldest first (the last few).
  public var linksSent: [Date]

  public init(verifiedAt: Date? = nil, linksSent: [Date] = []) {
    self.verifiedAt = verifiedAt
    self.linksSent = linksSent
  }

  public var isVerified: Bool { verifiedAt != nil }
}
