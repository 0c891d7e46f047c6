import Foundation
import Synchronization

/// Where users' saved states live. Nothing above this protocol knows which implementation runs:
/// JSON files on local disk by default, an in-memory one in tests.
public protocol UserStateStore: Sendable {
  /// Runs `body` with exclusive access to one user's saved bytes (`nil`: nothing saved yet) and
  /// saves the bytes it returns (`nil`: save nothing). Calls for the same user never overlap; an
  /// error from reading, from `body` or from saving is thrown and nothing is saved.
  func update<Result: Sendable>(
    _ user: SessionID,
    _ body: @Sendable (Data?) async throws -> (save: Data?, result: Result)
  ) async throws -> Result
}

/// Users' states in memory, for tests.
public final class InMemoryUserStateStore: UserStateStore {
  private let files = Mutex<[SessionID: Data]>([:])
  private let locks = KeyedMutex<SessionID>()

  public init() {}

  /// The saved bytes of a user.
  public subscript(user: SessionID) -> Data? {
    files.withLock { $0[user] }
  }

  public func update<Result: Sendable>(
    _ user: SessionID,
    _ body: @Sendable (Data?) async throws -> (save: Data?, result: Result)
  ) async throws -> Result {
    try await locks.withLock(user) {
      let (save, result) = try await body(self[user])
      if let save { files.withLock { $0[user] = save } }
      return result
    }
  }
}
