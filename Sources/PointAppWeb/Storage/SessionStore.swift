import Foundation
import NIOPosix
import Synchronization

/// What the server keeps of a session; the cookie carries only its id.
public struct SessionRecord: Codable, Equatable, Sendable {
  /// Whose data the session reads and changes; `nil` once the session has ended (logged out, or
  /// replaced by a new id at sign-in). An ended id is never taken up again: a copied cookie stays
  /// dead.
  public var user: UserID?
  /// The account signed in, if any, and its session epoch then: logging out of every device
  /// moves the account's epoch on, which ends every session of an older one.
  public var account: AccountID?
  public var epoch: Int
  /// The last request, to the hour or so (`Sessions.touchInterval`): sessions end after a while
  /// without one.
  public var lastSeen: Date
  /// When the password was last typed in this session: exchanges ask again after a while.
  public var passwordConfirmedAt: Date?

  public init(user: UserID?, account: AccountID? = nil, epoch: Int = 0, lastSeen: Date, passwordConfirmedAt: Date? = nil) {
    self.user = user
    self.account = account
    self.epoch = epoch
    self.lastSeen = lastSeen
    self.passwordConfirmedAt = passwordConfirmedAt
  }
}

/// Where session records live. Nothing above this protocol knows which implementation runs.
public protocol SessionStore: Sendable {
  func record(_ id: SessionID) async throws -> SessionRecord?
  /// Saves `record` as the session `id`'s, durably.
  func save(_ record: SessionRecord, as id: SessionID) async throws
  /// Saves `record` unless the session `id` has one (`false` then): of simultaneous first
  /// requests of a session, one makes its record and the others read it.
  func create(_ record: SessionRecord, as id: SessionID) async throws -> Bool
}

/// Session records in memory, for tests.
public final class InMemorySessionStore: SessionStore {
  private let records = Mutex<[SessionID: SessionRecord]>([:])

  public init() {}

  public func record(_ id: SessionID) async throws -> SessionRecord? {
    records.withLock { $0[id] }
  }

  public func save(_ record: SessionRecord, as id: SessionID) async throws {
    records.withLock { $0[id] = record }
  }

  public func create(_ record: SessionRecord, as id: SessionID) async throws -> Bool {
    records.withLock { records in
      guard records[id] == nil else { return false }
      records[id] = record
      return true
    }
  }
}

/// One small JSON file per session under `directory` (`<id>.json`), written durably.
public final class JSONFileSessionStore: SessionStore {
  private let records: RecordFolder<SessionKind, SessionRecord>

  public init(directory: URL, threadPool: NIOThreadPool = JSONFileUserStateStore.fileThreads) throws {
    records = try RecordFolder(directory, threadPool: threadPool)
  }

  public func record(_ id: SessionID) async throws -> SessionRecord? {
    try await records.read(id)
  }

  public func save(_ record: SessionRecord, as id: SessionID) async throws {
    try await records.write(record, as: id)
  }

  public func create(_ record: SessionRecord, as id: SessionID) async throws -> Bool {
    try await records.write(record, as: id, exclusive: true)
  }
}
