import Crypto
import Foundation
import NIOPosix
import Synchronization

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

/// Where accounts live. Nothing above this protocol knows which implementation runs.
public protocol AccountStore: Sendable {
  func account(_ id: AccountID) async throws -> Account?
  /// Creates `account` durably unless its address has one already (`false` then): of simultaneous
  /// registrations of one address, exactly one succeeds.
  func create(_ account: Account) async throws -> Bool
  /// Replaces an existing account durably.
  func update(_ account: Account) async throws
}

/// Accounts in memory, for tests.
public final class InMemoryAccountStore: AccountStore {
  private let accounts = Mutex<[AccountID: Account]>([:])

  public init() {}

  public func account(_ id: AccountID) async throws -> Account? {
    accounts.withLock { $0[id] }
  }

  public func create(_ account: Account) async throws -> Bool {
    accounts.withLock { accounts in
      guard accounts[account.id] == nil else { return false }
      accounts[account.id] = account
      return true
    }
  }

  public func update(_ account: Account) async throws {
    accounts.withLock { $0[account.id] = account }
  }
}

/// One JSON file per account under `directory` (`<id>.json`), written durably; a new one is
/// created with `link(2)`, which refuses an existing name, so one address makes one account even
/// across processes sharing the folder.
public final class JSONFileAccountStore: AccountStore {
  private let records: RecordFolder<AccountKind, Account>

  public init(directory: URL, threadPool: NIOThreadPool = JSONFileUserStateStore.fileThreads) throws {
    records = try RecordFolder(directory, threadPool: threadPool)
  }

  public func account(_ id: AccountID) async throws -> Account? {
    try await records.read(id)
  }

  public func create(_ account: Account) async throws -> Bool {
    try await records.write(account, as: account.id, exclusive: true)
  }

  public func update(_ account: Account) async throws {
    try await records.write(account, as: account.id)
  }
}
