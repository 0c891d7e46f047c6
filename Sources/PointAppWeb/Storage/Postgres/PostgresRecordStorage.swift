import Foundation
import PostgresNIO

/// Records in one of the database's record tables (`id`, `record` as JSON text, `version`): what
/// `FileRecordStorage` is to a folder. A statement inside a user's update runs in its transaction
/// (`Database.query`).
public struct PostgresRecordStorage: RecordStorage {
  let database: Database
  /// A table name from this program, never from input.
  let table: String

  public init(_ database: Database, table: String) {
    self.database = database
    self.table = table
  }

  public func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await read(name, "SELECT record, version FROM \(table) WHERE id = $1")
  }

  /// The row locked until the transaction ends (`FOR UPDATE`); a statement of its own, outside one.
  public func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await read(name, "SELECT record, version FROM \(table) WHERE id = $1 FOR UPDATE")
  }

  private func read(_ name: String, _ sql: String) async throws -> (data: Data, version: Int64)? {
    guard let row = try await run(sql, name).first else { return nil }
    let (bytes, version) = try row.decode((ByteBuffer, Int64).self)
    return (Data(bytes.readableBytesView), version)
  }

  public func create(_ name: String, _ data: Data) async throws -> Bool {
    try await !run(
      "INSERT INTO \(table) (id, record, version) VALUES ($1, $2, 1) ON CONFLICT (id) DO NOTHING RETURNING 1",
      name, String(decoding: data, as: UTF8.self)
    ).isEmpty
  }

  public func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    try await !run(
      "UPDATE \(table) SET record = $2, version = version + 1 WHERE id = $1 AND version = $3 RETURNING 1",
      name, String(decoding: data, as: UTF8.self), version
    ).isEmpty
  }

  public func delete(_ name: String, at version: Int64) async throws -> Bool {
    try await !run("DELETE FROM \(table) WHERE id = $1 AND version = $2 RETURNING 1", name, version).isEmpty
  }

  public func names(after name: String?, limit: Int) async throws -> [String] {
    try await run("SELECT id FROM \(table) WHERE id > $1 ORDER BY id LIMIT $2", name ?? "", Int64(limit))
      .map { try $0.decode(String.self) }
  }

  /// One statement: a range of the primary key (the table's ids compare as bytes where it
  /// matters: `responses` is `COLLATE "C"`).
  public func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    try await run(
      "SELECT id, record FROM \(table) WHERE id > $1 AND starts_with(id, $2) ORDER BY id LIMIT $3",
      max(name ?? "", prefix), prefix, Int64(limit)
    ).map { row in
      // The record's bytes as they came, copied once (a `String` would check and copy them
      // once more; `Data` as PostgresNIO decodes it may keep the whole buffer they came in).
      let (id, bytes) = try row.decode((String, ByteBuffer).self)
      return (id, Data(bytes.readableBytesView))
    }
  }

  private func run(_ sql: String, _ values: any PostgresDynamicTypeEncodable...) async throws -> [PostgresRow] {
    var binds = PostgresBindings()
    for value in values { binds.append(value) }
    return try await database.query(PostgresQuery(unsafeSQL: sql, binds: binds))
  }
}

/// Records in the database's record tables, and holdings as transactions: the key is an
/// advisory lock taken first (`pg_advisory_xact_lock`, held to the end), every statement of the
/// holding runs in it (`OpenTransaction`, `Database.query`), and a row written or read for update
/// is locked until the commit.
///
/// With a change feed, users' states, sessions and accounts, read by every request, are read through its caches
/// (`CachedRecordStorage`).
public struct PostgresBackend: RecordBackend {
  let database: Database
  let feed: ChangeFeed?

  public init(_ database: Database, feed: ChangeFeed? = nil) {
    self.database = database
    self.feed = feed
  }

  public func table(_ kind: RecordKind) -> any RecordStorage {
    let table = PostgresRecordStorage(database, table: kind.table)
    switch (kind, feed) {
    case let (.users, feed?): return CachedRecordStorage(base: table, cache: feed.users)
    case let (.sessions, feed?): return CachedRecordStorage(base: table, cache: feed.sessions)
    case let (.accounts, feed?): return CachedRecordStorage(base: table, cache: feed.accounts)
    default: return table
    }
  }

  public func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    let lock: PostgresQuery = "SELECT pg_advisory_xact_lock(\(HoldingKey.number(key)))"
    if let outer = OpenTransaction.current {
      try await outer.run(lock)
      return try await body()
    }
    return try await withoutActuallyEscaping(body) { body in
      try await database.transaction { [logger = database.logger] connection in
        let open = OpenTransaction(connection, logger: logger)
        defer { open.close() }
        return try await OpenTransaction.$current.withValue(open) {
          try await open.run(lock)
          return try await body()
        }
      }
    }
  }
}
