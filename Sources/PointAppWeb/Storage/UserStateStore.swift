import Foundation
import Synchronization

/// What one update saves: the user's state, and archive records that never change once the state
/// referring to them is saved. Both commit together, with every other write of the update.
public struct UserSave: Sendable {
  /// Archive records by name (`UserFiles`: `ledger-0`, `answer-…`).
  public var archive: [String: Data]
  public var state: Data
  /// Writes elsewhere that the save implies (responses recorded, exchanges queued), made in the
  /// update before the state is written, and committed with it: their error is the update's.
  public var before: (@Sendable () async throws -> Void)?

  public init(archive: [String: Data] = [:], state: Data) {
    self.archive = archive
    self.state = state
  }
}

/// Users' saved states, one record each (`RecordKind.users`, bounded in size), and their archives
/// (`RecordKind.archive`, `<user>~<name>`): one implementation over any backend. An update holds
/// the key `user:<id>` (`RecordBackend.holding`), so one user's updates take turns in every
/// process and instance, and what it writes commits together.
public struct UserStates: Sendable {
  let backend: any RecordBackend
  private let states: any RecordStorage
  private let archive: any RecordStorage
  /// Where an update's time, the request's work left out, and a read's are measured.
  private let metrics: ProductMetrics?

  public init(_ backend: any RecordBackend) {
    self.init(backend, metrics: nil)
  }

  init(_ backend: any RecordBackend, metrics: ProductMetrics?) {
    self.backend = backend
    states = backend.table(.users)
    archive = backend.table(.archive)
    self.metrics = metrics
  }

  /// Runs `body` holding the user's key with their saved state (`nil`: nothing saved yet), and
  /// saves what it returns (`nil`: save nothing), with every write `body` made: all of it, or
  /// none when anything throws.
  public func update<Result: Sendable>(
    _ user: UserID,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    let start = ContinuousClock.now
    let inBody = Mutex<Duration>(.zero)
    defer { metrics?.storeUpdates.record(duration: ContinuousClock.now - start - inBody.withLock { $0 }) }
    return try await backend.holding("user:" + user.rawValue) {
      let saved = try await states.readForUpdate(user.rawValue)
      let entered = ContinuousClock.now
      let (save, result) = try await body(saved?.data)
      inBody.withLock { $0 += ContinuousClock.now - entered }
      guard let save else { return result }
      try await save.before?()
      for (name, data) in save.archive.sorted(by: { $0.key < $1.key }) {
        try await Self.put(data, as: user.rawValue + "~" + name, in: archive, at: archive.readForUpdate(user.rawValue + "~" + name)?.version)
      }
      try await Self.put(save.state, as: user.rawValue, in: states, at: saved?.version)
      return result
    }
  }

  /// Writes a record the holding holds: it cannot have moved.
  private static func put(_ data: Data, as name: String, in table: any RecordStorage, at version: Int64?) async throws {
    let written = if let version { try await table.replace(name, data, at: version) } else { try await table.create(name, data) }
    guard written else { throw RecordConflict(record: name) }
  }

  /// A user's state as last saved (`nil`: nothing saved yet), without waiting for their updates:
  /// always one saved state, never a mix. For requests that turn out to change nothing (most page
  /// views), which then need not queue behind each other.
  public func read(_ user: UserID) async throws -> Data? {
    let start = ContinuousClock.now
    defer { metrics?.storeReads.record(duration: ContinuousClock.now - start) }
    return try await states.read(user.rawValue)?.data
  }

  /// The archive records of a user among `names` that exist, by name.
  public func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    var found: [String: Data] = [:]
    for name in names {
      found[name] = try await archive.read(user.rawValue + "~" + name)?.data
    }
    return found
  }
}
