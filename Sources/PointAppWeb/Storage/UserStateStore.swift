import Foundation
import Synchronization

/// What one update saves: archive files first, then the user's state file, which is the commit
/// point. Archive files are written again, with the same bytes, when a crash came between.
public struct UserSave: Sendable {
  /// Archive files by name (a plain file name, no folder).
  public var archive: [String: Data]
  public var state: Data
  /// Writes elsewhere that must be done, durably, before the state is saved (the responses of
  /// the answers it saves). A store that can runs them while it writes the state's bytes, and
  /// gives the state its place only once they are done; their error is the update's.
  public var before: (@Sendable () async throws -> Void)?
  /// Told, once the user's lock is let go, whether the state was saved: `true`, or `nil` when
  /// an error came as it was being saved, so that it may or may not have been (`commit`).
  public var after: (@Sendable (_ saved: Bool?) async -> Void)?
  /// On PostgreSQL, the `ChangeFeed` mark notified with the save (`users:<id>:<mark>`).
  public var mark: String?

  public init(archive: [String: Data] = [:], state: Data) {
    self.archive = archive
    self.state = state
  }
}

/// Where users' saved states live. Nothing above this protocol knows which implementation runs:
/// JSON files on local disk by default, an in-memory one in tests.
///
/// A user has one state file, of bounded size, and an archive of files that never change once the
/// state referring to them is saved (the ledger's old segments, old answers).
public protocol UserStateStore: Sendable {
  /// Runs `body` with exclusive access to one user's saved state (`nil`: nothing saved yet) and
  /// saves what it returns (`nil`: save nothing). Calls for the same user never overlap; an
  /// error from reading, from `body` or from saving is thrown and the state file is unchanged.
  func update<Result: Sendable>(
    _ user: UserID,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result

  /// A user's state as last saved (`nil`: nothing saved yet), read without waiting for the user's
  /// updates: a save replaces the whole file at once, so this is always one saved state, never a
  /// mix. For requests that turn out to change nothing (most page views), which then need not
  /// queue behind each other.
  func read(_ user: UserID) async throws -> Data?

  /// The archive files of a user among `names` that exist, by name.
  func archived(_ names: [String], of user: UserID) async throws -> [String: Data]
}

extension UserStateStore {
  /// `update`, then what the save implies told whether it was saved (`UserSave.after`), once the
  /// user's lock is let go: it may take it again to look.
  func commit<Result: Sendable>(
    _ user: UserID, _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    let after = Mutex<(@Sendable (Bool?) async -> Void)?>(nil)
    do {
      let result = try await update(user) { saved in
        let (save, result) = try await body(saved)
        after.withLock { $0 = save?.after }
        return (save, result)
      }
      await after.withLock({ $0 })?(true)
      return result
    } catch {
      await after.withLock({ $0 })?(nil)
      throw error
    }
  }
}

/// Users' states in memory, for tests.
public final class InMemoryUserStateStore: UserStateStore {
  private let files = Mutex<[UserID: Data]>([:])
  private let archives = Mutex<[UserID: [String: Data]]>([:])
  private let locks = KeyedMutex<UserID>()

  public init() {}

  /// The saved state of a user.
  public subscript(user: UserID) -> Data? {
    files.withLock { $0[user] }
  }

  public func update<Result: Sendable>(
    _ user: UserID,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    try await locks.withLock(user) {
      let (save, result) = try await body(self[user])
      if let save {
        try await save.before?()
        archives.withLock { $0[user, default: [:]].merge(save.archive) { _, new in new } }
        files.withLock { $0[user] = save.state }
      }
      return result
    }
  }

  public func read(_ user: UserID) async throws -> Data? {
    self[user]
  }

  public func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    let archive = archives.withLock { $0[user] ?? [:] }
    return archive.filter { names.contains($0.key) }
  }
}
