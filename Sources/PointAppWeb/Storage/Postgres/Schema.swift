import Foundation
import PostgresNIO

/// A step of the database's schema. Steps are only ever added at the end: one that shipped is
/// never changed, since databases out there have run it.
public struct Migration: Sendable, Equatable {
  public let version: Int
  public let name: String
  let statements: [String]
}

/// The database's schema, built by numbered migrations at start-up. Instances starting together
/// take turns under an advisory lock, so each migration runs once; a database migrated by a newer
/// program is refused, never misread.
public enum Schema {
  public static let migrations: [Migration] = [
    Migration(version: 1, name: "users, their archive, sessions, accounts, login limits, settings", statements: [
      // A user's state: the bytes a file store keeps in `<id>.json` (JSON, read with
      // `convert_from(state, 'UTF8')::jsonb`); the archive: its `<id>.archive/` files by name.
      """
      CREATE TABLE users (
        id text PRIMARY KEY,
        state bytea NOT NULL,
        saved_at timestamptz NOT NULL DEFAULT now()
      )
      """,
      """
      CREATE TABLE user_archive (
        user_id text NOT NULL,
        name text NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (user_id, name)
      )
      """,
      // Session and account records as JSON text (`record::jsonb`).
      "CREATE TABLE sessions (id text PRIMARY KEY, record text NOT NULL)",
      "CREATE TABLE accounts (id text PRIMARY KEY, record text NOT NULL)",
      "CREATE TABLE login_failures (email text PRIMARY KEY, count integer NOT NULL, last timestamptz NOT NULL)",
      "CREATE TABLE login_attempts (client text PRIMARY KEY, times timestamptz[] NOT NULL)",
      "CREATE TABLE settings (name text PRIMARY KEY, value bytea NOT NULL)",
    ]),
    Migration(version: 2, name: "survey quotas", statements: [
      // Places taken per survey, and who holds them; both change with the holder's update.
      "CREATE TABLE survey_quotas (survey_id text PRIMARY KEY, taken integer NOT NULL CHECK (taken >= 0))",
      "CREATE TABLE quota_places (survey_id text NOT NULL, user_id text NOT NULL, PRIMARY KEY (survey_id, user_id))",
    ]),
    Migration(version: 3, name: "versioned records", statements: [
      // Every record table (`PostgresRecordStorage`) has a version that moves on with each
      // write: a write names the version it read, and loses to one that came between.
      "ALTER TABLE sessions ADD COLUMN version bigint NOT NULL DEFAULT 1",
      "ALTER TABLE accounts ADD COLUMN version bigint NOT NULL DEFAULT 1",
    ]),
    Migration(version: 4, name: "survey catalog", statements: [
      // The catalog as one record (`CatalogStore`): a change is whole, and its version is what
      // every instance checks each second.
      "CREATE TABLE catalog (id text PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)",
    ]),
    Migration(version: 5, name: "operators and the audit log", statements: [
      "CREATE TABLE operators (id text PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)",
      // Entries are only inserted: names count down in time, so the primary key's order is newest first.
      "CREATE TABLE audit (id text PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)",
    ]),
    Migration(version: 6, name: "survey responses", statements: [
      // `<survey>~<respondent>`, in byte order whatever the database's collation, so that a
      // survey's responses are one range of the primary key.
      #"CREATE TABLE responses (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
    ]),
    Migration(version: 7, name: "exchange codes and pending exchanges", statements: [
      // The built-in issuer's records (`GiftCodeIssuer`): `r-<request key>` and `c-<code>`.
      #"CREATE TABLE gift_codes (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      // `<user>~<number>` for each exchange request left pending (`ExchangeQueue`).
      #"CREATE TABLE exchange_pending (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
    ]),
    Migration(version: 8, name: "changes of users, sessions and accounts notified; a user's lock and state in one call", statements: [
      // `<table>:<id>` on `pointapp_changes` for every row written, delivered as the write
      // commits: each instance drops what it cached of that row (`ChangeFeed`).
      """
      CREATE FUNCTION pointapp_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('pointapp_changes', TG_TABLE_NAME || ':' || CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
        RETURN NULL;
      END $$
      """,
      // A user's state carries the mark of the request that saved it (`users:<id>:<mark>`): the
      // browser's next page, on any instance, is served from a cache only once that is heard.
      "ALTER TABLE users ADD COLUMN mark text",
      """
      CREATE FUNCTION pointapp_notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('pointapp_changes', 'users:' || OLD.id);
        ELSE
          PERFORM pg_notify('pointapp_changes', 'users:' || NEW.id || coalesce(':' || NEW.mark, ''));
        END IF;
        RETURN NULL;
      END $$
      """,
      "CREATE TRIGGER users_changed AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION pointapp_notify_user_change()",
      "CREATE TRIGGER sessions_changed AFTER INSERT OR UPDATE OR DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION pointapp_notify_change()",
      "CREATE TRIGGER accounts_changed AFTER INSERT OR UPDATE OR DELETE ON accounts FOR EACH ROW EXECUTE FUNCTION pointapp_notify_change()",
      // The user's advisory lock, then their state as it is once the lock is held: a volatile
      // function's statements each see what committed before them, so this is the two
      // statements an update began with, in one round trip.
      """
      CREATE FUNCTION pointapp_lock_user(key bigint, user_id text) RETURNS bytea LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(key);
        RETURN (SELECT state FROM users WHERE id = user_id);
      END $$
      """,
    ]),
    Migration(version: 9, name: "support desk adjustments under four eyes", statements: [
      #"CREATE TABLE adjustments (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
    ]),
    Migration(version: 10, name: "login limits as records", statements: [
      // The counts as the data folder keeps them (`LoginThrottle`): one implementation. Counts in
      // flight at the upgrade start again.
      #"CREATE TABLE login_limits (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      "DROP TABLE login_failures",
      "DROP TABLE login_attempts",
    ]),
    Migration(version: 11, name: "users, their archive, the quotas and the settings as records", statements: [
      // A user's state as a record (`UserStates`), changes notified as the other tables' are;
      // the mark goes on its own (`ChangeFeed.mark`).
      "DROP TRIGGER users_changed ON users",
      "DROP FUNCTION pointapp_notify_user_change()",
      "DROP FUNCTION pointapp_lock_user(bigint, text)",
      "ALTER TABLE users ALTER COLUMN state TYPE text USING convert_from(state, 'UTF8')",
      "ALTER TABLE users RENAME COLUMN state TO record",
      "ALTER TABLE users ADD COLUMN version bigint NOT NULL DEFAULT 1",
      "ALTER TABLE users DROP COLUMN saved_at",
      "ALTER TABLE users DROP COLUMN mark",
      "CREATE TRIGGER users_changed AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION pointapp_notify_change()",
      // `<user>~<name>`, the name without the `.json` its file had.
      "ALTER TABLE user_archive RENAME TO user_archive_before",
      #"CREATE TABLE user_archive (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      #"INSERT INTO user_archive (id, record) SELECT user_id || '~' || regexp_replace(name, '\.json$', ''), convert_from(data, 'UTF8') FROM user_archive_before"#,
      "DROP TABLE user_archive_before",
      // `q~<survey>`: places taken; `p~<survey>~<user>`: a holder's (`Quotas`).
      #"CREATE TABLE quotas (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      "INSERT INTO quotas (id, record) SELECT 'q~' || survey_id, taken::text FROM survey_quotas",
      "INSERT INTO quotas (id, record) SELECT 'p~' || survey_id || '~' || user_id, 'true' FROM quota_places",
      "DROP TABLE survey_quotas",
      "DROP TABLE quota_places",
      // The session secret as a record (JSON: base64).
      "ALTER TABLE settings RENAME TO settings_before",
      #"CREATE TABLE settings (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      "INSERT INTO settings (id, record) SELECT name, to_json(encode(value, 'base64'))::text FROM settings_before",
      "DROP TABLE settings_before",
    ]),
    Migration(version: 12, name: "mail: the queue and the log", statements: [
      // `m-<queued, ms>-<message id>`: the queue in the order messages were queued (`MailQueue`).
      #"CREATE TABLE mail_queue (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
      // `<message id>`: delivered or refused, without the address.
      #"CREATE TABLE mail_log (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
    ]),
    Migration(version: 13, name: "notices: passes over the members", statements: [
      // `run-<reason>` under way, `done-<reason>` finished (`NoticeRuns`).
      #"CREATE TABLE notice_runs (id text COLLATE "C" PRIMARY KEY, record text NOT NULL, version bigint NOT NULL DEFAULT 1)"#,
    ]),
  ]

  public static var latest: Int { migrations.last?.version ?? 0 }

  /// `pg_advisory_lock`'s two-key form, a space of its own: ('PoiA', 1).
  private static let lockKeys: (Int32, Int32) = (0x506F_6941, 1)

  /// The migrations this database has not run. Changes nothing.
  public static func pending(in database: Database) async throws -> [Migration] {
    try await database.withConnection { connection in
      try await pending(on: connection, logger: database.logger)
    }
  }

  /// Runs the pending migrations, each in a transaction, and returns them.
  @discardableResult
  public static func migrate(_ database: Database) async throws -> [Migration] {
    try await database.withConnection { connection in
      let logger = database.logger
      // Not a request's statements: waiting for another instance's migrations, or moving a large
      // table's rows, may take far longer than `statementLimit`.
      let limit = Duration.seconds(3600)
      try await connection.run("SELECT pg_advisory_lock(\(lockKeys.0), \(lockKeys.1))", logger: logger, limit: limit)
      do {
        try await connection.run(
          "CREATE TABLE IF NOT EXISTS pointapp_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
          logger: logger
        )
        let pending = try await pending(on: connection, logger: logger)
        for migration in pending {
          try await connection.run("BEGIN", logger: logger)
          do {
            for statement in migration.statements {
              try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger, limit: limit)
            }
            try await connection.run(
              "INSERT INTO pointapp_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger
            )
            try await connection.run("COMMIT", logger: logger)
          } catch {
            _ = try? await connection.run("ROLLBACK", logger: logger)
            throw error
          }
          logger.notice("database migrated", metadata: ["version": "\(migration.version)", "migration": "\(migration.name)"])
        }
        try await connection.run("SELECT pg_advisory_unlock(\(lockKeys.0), \(lockKeys.1))", logger: logger)
        return pending
      } catch {
        _ = try? await connection.run("SELECT pg_advisory_unlock(\(lockKeys.0), \(lockKeys.1))", logger: logger)
        throw error
      }
    }
  }

  private static func pending(on connection: PostgresConnection, logger: Logger) async throws -> [Migration] {
    let exists = try await connection.run("SELECT to_regclass('pointapp_migrations') IS NOT NULL", logger: logger)
      .first?.decode(Bool.self) ?? false
    guard exists else { return migrations }
    let applied = try await connection.run("SELECT version FROM pointapp_migrations", logger: logger)
      .map { try $0.decode(Int.self) }
    if let newest = applied.max(), newest > latest {
      throw SchemaTooNew(database: newest, program: latest)
    }
    return migrations.filter { !applied.contains($0.version) }
  }
}

/// The database was migrated by a newer program: this one would misread it.
public struct SchemaTooNew: Error, CustomStringConvertible {
  public let database: Int
  public let program: Int
  public var description: String {
    "the database's schema is version \(database), newer than this program's (\(program)): run the newer pointapp, or restore a backup"
  }
}
