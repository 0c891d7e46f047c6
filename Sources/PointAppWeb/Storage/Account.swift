import Crypto
import Foundation
import PointApp

public enum AccountKind {}
/// An account's id: from its email address (normalized), so that finding an account by email
/// is reading one record, and two registrations of one address name the same record.
public typealias AccountID = RandomID<AccountKind>

extension RandomID where Kind == AccountKind {
  /// The id of the account of `email`, an address already normalized (trimmed, lowercased).
  public init(email: String) {
    self.init(hex(SHA256.hash(data: Data(email.utf8)).prefix(16)))!
  }
}

/// A registered account: the address it signs in with, its password's bcrypt hash, and the user
/// whose data it owns.
public struct Account: Codable, Equatable, Sendable {
  public let email: String
  public var passwordHash: String
  public let user: UserID
  /// Moves on when the account logs out of every device: sessions of an older epoch are ended.
  public var epoch: Int
  public let created: Date
  /// When the address was proved by a link sent to it (`nil`: not yet).
  public var verifiedAt: Date?
  /// The verification link that works now: its secret's SHA-256, and until when.
  public var verification: PendingLink?
  /// When the latest verification links were sent (the last five).
  public var linksSent: [Date]?
  /// The password reset link that works now, and when the latest were sent (the last five).
  public var reset: PendingLink?
  public var resetsSent: [Date]?
  /// The address the member asked to move to, until its link is used, and when those links were
  /// sent (the last five).
  public var addressChange: AddressChange?
  public var changesSent: [Date]?

  public init(email: String, passwordHash: String, user: UserID, epoch: Int = 0, created: Date) {
    self.email = email
    self.passwordHash = passwordHash
    self.user = user
    self.epoch = epoch
    self.created = created
  }

  public var id: AccountID { AccountID(email: email) }

  /// The address as the features see it.
  public var addressStatus: AddressStatus {
    AddressStatus(verifiedAt: verifiedAt, linksSent: linksSent ?? [])
  }
}

/// A move to another address, waiting for the link sent there.
public struct AddressChange: Codable, Equatable, Sendable {
  public let to: String
  public let link: PendingLink
}

/// A link sent by mail that works once: the SHA-256 of its secret (never the secret), and until when.
public struct PendingLink: Codable, Equatable, Sendable {
  public let hash: String
  public let expires: Date

  /// A new link for the account `account` valid until `expires`: its token (the account's id,
  /// then 32 hex digits of secret), and what the account keeps of it.
  static func issue(for account: AccountID, expires: Date) -> (token: String, link: PendingLink) {
    let secret = hex(randomBytes(16))
    return (account.rawValue + secret, PendingLink(hash: Self.hash(secret), expires: expires))
  }

  /// The account a token names, and its secret; `nil` for anything that is not a token.
  static func parse(_ token: String) -> (account: AccountID, secret: String)? {
    guard token.utf8.count == 64, let account = AccountID(token.prefix(32)), RandomID<Never>(token.suffix(32)) != nil else { return nil }
    return (account, String(token.suffix(32)))
  }

  /// Whether `secret` opens this link at `now`.
  func opens(with secret: String, at now: Date) -> Bool {
    now < expires && constantTimeEqual(hash, Self.hash(secret))
  }

  static func hash(_ secret: String) -> String {
    hex(SHA256.hash(data: Data(secret.utf8)))
  }
}

/// Where accounts live (`data/accounts/`, the `accounts` table, or memory). An account is created
/// once per address (`create`), and changed by `modify`, so that two changes at once (a password
/// changed while another device logs out everywhere) both land.
public typealias AccountRecords = Records<AccountID, Account>
