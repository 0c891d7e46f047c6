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

/// The login limits in PostgreSQL (`login_failures`, `login_attempts`), shared by every
/// instance: a guesser gains nothing by spreading guesses over them. Each count is one upsert,
/// which PostgreSQL runs under the row's lock, so simultaneous attempts are all counted.
public final class PostgresLoginThrottle: LoginThrottle {
  let database: Database

  public init(_ database: Database) {
    self.database = database
  }

  public func admit(email: String, client: String?, now: Date) async throws {
    let since = now.addingTimeInterval(-LoginLimits.lockout)
    let failures = try await database.query(
      "SELECT count FROM login_failures WHERE email = \(email) AND last > \(since)"
    ).first?.decode(Int.self) ?? 0
    guard failures < LoginLimits.failuresAllowed else { throw AccountError.throttled }
    try await admit(client: client, now: now)
    // Counted as a failure until it succeeds; refused if others reached the limit meanwhile.
    let counted = try await database.query(
      """
      INSERT INTO login_failures AS f (email, count, last) VALUES (\(email), 1, \(now))
      ON CONFLICT (email) DO UPDATE
        SET count = CASE WHEN f.last > \(since) THEN f.count + 1 ELSE 1 END, last = excluded.last
        WHERE f.last <= \(since) OR f.count < \(LoginLimits.failuresAllowed)
      RETURNING 1
      """
    )
    guard !counted.isEmpty else { throw AccountError.throttled }
    if Int.random(in: 0..<200) == 0 { try await prune(now: now) }
  }

  public func admit(client: String?, now: Date) async throws {
    guard let client else { return }
    let since = now.addingTimeInterval(-60)
    let admitted = try await database.query(
      """
      INSERT INTO login_attempts AS a (client, times) VALUES (\(client), ARRAY[\(now)]::timestamptz[])
      ON CONFLICT (client) DO UPDATE
        SET times = ARRAY(SELECT t FROM unnest(a.times) t WHERE t > \(since)) || excluded.times
        WHERE cardinality(ARRAY(SELECT t FROM unnest(a.times) t WHERE t > \(since))) < \(LoginLimits.attemptsPerMinute)
      RETURNING 1
      """
    )
    guard !admitted.isEmpty else { throw AccountError.throttled }
  }

  public func succeeded(email: String) async throws {
    try await database.query("DELETE FROM login_failures WHERE email = \(email)")
  }

  /// Forgets counts too old to matter: one login in two hundred does it.
  func prune(now: Date) async throws {
    try await database.query("DELETE FROM login_failures WHERE last <= \(now.addingTimeInterval(-LoginLimits.lockout))")
    try await database.query(
      "DELETE FROM login_attempts WHERE (SELECT max(t) FROM unnest(times) t) <= \(now.addingTimeInterval(-60))"
    )
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
