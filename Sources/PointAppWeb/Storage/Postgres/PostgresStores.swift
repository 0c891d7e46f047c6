import Foundation
import PointApp
import PostgresNIO

/// Users' states in PostgreSQL (`users`, `user_archive`), with the bytes the file store writes.
///
/// An update is one transaction that first takes the user's advisory lock, so one user's updates
/// are serialised across every instance, a user with no row yet included; archive rows are
/// written before the state row in the same transaction, which commits both or neither. An update
/// that saves nothing writes nothing.
public final class PostgresUserStateStore: UserStateStore {
  let database: Database

  public init(_ database: Database) {
    self.database = database
  }

  /// The user's advisory lock: a user id is 32 random hex digits, the first 16 make the key.
  static func lockKey(_ user: UserID) -> Int64 {
    Int64(bitPattern: UInt64(user.rawValue.prefix(16), radix: 16) ?? 0)
  }

  public func update<Result: Sendable>(
    _ user: UserID,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    // An update inside another (a login taking a guest into the account's user) joins its
    // transaction: nothing inside an update leases a second connection.
    if let outer = OpenTransaction.current { return try await update(user, in: outer, body) }
    return try await withoutActuallyEscaping(body) { body in
      try await database.transaction { [logger = database.logger] connection in
        // What joins the update (a quota place, a session's end) runs in its transaction, until
        // the body returns.
        let open = OpenTransaction(connection, logger: logger)
        defer { open.close() }
        return try await OpenTransaction.$current.withValue(open) { try await update(user, in: open, body) }
      }
    }
  }

  private func update<Result: Sendable>(
    _ user: UserID, in transaction: OpenTransaction,
    _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    let saved = try await transaction.run("SELECT pointapp_lock_user(\(Self.lockKey(user)), \(user.rawValue))").first?.decode(Data?.self)
    let (save, result) = try await body(saved)
    if let save {
      try await save.before?()
      for (name, data) in save.archive {
        try await transaction.run(
          """
          INSERT INTO user_archive (user_id, name, data) VALUES (\(user.rawValue), \(name), \(data))
          ON CONFLICT (user_id, name) DO UPDATE SET data = excluded.data
          """
        )
      }
      try await transaction.run(
        """
        INSERT INTO users (id, state, mark) VALUES (\(user.rawValue), \(save.state), \(save.mark))
        ON CONFLICT (id) DO UPDATE SET state = excluded.state, saved_at = now(), mark = excluded.mark
        """
      )
    }
    return result
  }

  public func read(_ user: UserID) async throws -> Data? {
    try await database.query("SELECT state FROM users WHERE id = \(user.rawValue)").first?.decode(Data.self)
  }

  public func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    guard !names.isEmpty else { return [:] }
    let rows = try await database.query("SELECT name, data FROM user_archive WHERE user_id = \(user.rawValue) AND name = ANY(\(names))")
    return try Dictionary(rows.map { try $0.decode((String, Data).self) }) { first, _ in first }
  }
}

extension Database {
  /// The key that signs session cookies and CSRF tokens, shared by every instance: made by the
  /// first instance that asks, read by the others.
  public func sessionSecret() async throws -> Data {
    var generator = SystemRandomNumberGenerator()
    let made = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try await query("INSERT INTO settings (name, value) VALUES ('session-secret', \(made)) ON CONFLICT (name) DO NOTHING")
    guard let secret = try await query("SELECT value FROM settings WHERE name = 'session-secret'").first?.decode(Data.self),
      secret.count == 32
    else { throw DatabaseUnavailable(reason: "the session secret in settings is not 32 bytes") }
    return secret
  }
}
