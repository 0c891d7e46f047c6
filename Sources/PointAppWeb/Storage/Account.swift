import Crypto
import Foundation

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

  public init(email: String, passwordHash: String, user: UserID, epoch: Int = 0, created: Date) {
    self.email = email
    self.passwordHash = passwordHash
    self.user = user
    self.epoch = epoch
    self.created = created
  }

  public var id: AccountID { AccountID(email: email) }
}

/// Where accounts live (`data/accounts/`, the `accounts` table, or memory). An account is created
/// once per address (`create`), and changed by `modify`, so that two changes at once (a password
/// changed while another device logs out everywhere) both land.
public typealias AccountRecords = Records<AccountID, Account>
