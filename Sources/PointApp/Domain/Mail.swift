import Foundation

/// A message a feature asks to be sent. A reducer puts it in the state (`AppFeature.State.outbox`,
/// never saved); the web layer writes it with the same save as the change that asked for it, and
/// a worker delivers it once.
public struct MailRequest: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    /// The link that proves the address is the member's: `token` opens it until `expires`.
    case addressVerification(token: Secret, expires: Date)
    /// The link that lets the member choose a new password, asked for at `requestedAt`.
    case passwordReset(token: Secret, requestedAt: Date, expires: Date)
    /// A survey the member can answer was published.
    case invitation(SurveyInvitation)
    /// A survey the member was invited to and has not answered closes soon: once, before its
    /// deadline.
    case reminder(SurveyInvitation)
    /// Points of these lots expire soon.
    case expiryWarning([ExpiringPoints])
    /// The account ended (退会), with the points it gave up.
    case withdrawn(lost: PointAmount)
    /// The link that moves the account to the address it goes to.
    case addressChange(token: Secret, expires: Date)
    /// To the address an account left: it moved to `to`.
    case addressChanged(to: EmailAddress)

    /// The list a member may stop that the message belongs to; `nil` for the account's own mail.
    public var list: NoticeList? {
      switch self {
      case .addressVerification, .passwordReset, .withdrawn, .addressChange, .addressChanged: nil
      case .invitation, .reminder: .invitations
      case .expiryWarning: .expiry
      }
    }
  }

  public let to: EmailAddress
  public let kind: Kind
  /// The address of the account the message is about, whichever browser asked for it (a reset is
  /// asked for from a guest's): the recipient's own, or, told to the address an account left,
  /// the one it moved to.
  public let account: EmailAddress

  public init(to: EmailAddress, _ kind: Kind, about account: EmailAddress? = nil) {
    self.to = to
    self.kind = kind
    self.account = account ?? to
  }
}

/// What an invitation says of its survey.
public struct SurveyInvitation: Equatable, Sendable {
  public let survey: SurveyID
  public let title: String
  public let reward: PointAmount
  public let minutes: Int
  public let expiresAt: Date?

  public init(_ survey: Survey) {
    (self.survey, title, reward, minutes, expiresAt) = (survey.id, survey.title, survey.reward, survey.estimatedMinutes, survey.expiresAt)
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

/// How often a link by mail goes to one address: at most once a minute and three times an hour,
/// so that an address typed by someone else gets no flood.
public enum LinkLimit {
  public static let interval: TimeInterval = 60
  public static let perHour = 3

  /// Whether another link may go at `now`, after those `sent`.
  public static func allows(after sent: [Date], at now: Date) -> Bool {
    let lastHour = sent.filter { now.timeIntervalSince($0) < 3600 }
    return lastHour.count < perHour && lastHour.allSatisfy { now.timeIntervalSince($0) >= interval }
  }
}

/// A message that never reached its member: refused for good (5xx) or given up after three days
/// of trying, with the server's last words. Shown on the support desk.
/// An exchange request waiting for its code, as the desk's first page lists it (the oldest first).
public struct WaitingExchange: Equatable, Sendable {
  public let user: String
  public let number: Int
  /// When it was queued (unknown for a request queued by an older release).
  public let since: Date?
  /// Calls to the source that said nothing.
  public let attempts: Int
  /// The last call's answer was lost: the source may have issued (its status is asked next).
  public let answerUnknown: Bool

  public init(user: String, number: Int, since: Date?, attempts: Int, answerUnknown: Bool) {
    (self.user, self.number, self.since, self.attempts, self.answerUnknown) = (user, number, since, attempts, answerUnknown)
  }
}

public struct UndeliveredMail: Equatable, Sendable {
  /// The user's id, for the desk's link.
  public let user: String?
  /// `verification`, `invitation`, …
  public let kind: String
  public let subject: String
  public let ended: Date
  public let attempts: Int
  public let reply: String

  public init(user: String?, kind: String, subject: String, ended: Date, attempts: Int, reply: String) {
    (self.user, self.kind, self.subject, self.ended, self.attempts, self.reply) = (user, kind, subject, ended, attempts, reply)
  }
}
