import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The database several instances share (`--database-url`): a pool of connections
/// (`Connections`) with every store's way in. A request waits for a connection at most
/// `waitLimit`: while the database is down none can be made, and the request is answered 503
/// (`DatabaseUnavailable`) instead of hanging; the pool connects again by itself once it is back.
///
/// The pool runs from `init` until the service's graceful shutdown, which comes after the HTTP
/// server's (services stop in the reverse of their order), so requests in flight finish first.
public final class Database: Service, Sendable {
  let connections: Connections
  /// With its password: never logged.
  let url: String
  let logger: Logger
  let waitLimit: Duration
  /// The longest a request waits for a connection unless told otherwise.
  public static let defaultWaitLimit = Duration.seconds(3)

  public init(url: String, poolSize: Int = 20, waitLimit: Duration = Database.defaultWaitLimit, logger: Logger) throws {
    var configuration = try Self.configuration(url)
    configuration.options.connectTimeout = waitLimit.timeAmount
    connections = Connections(configuration, size: poolSize, logger: logger)
    self.url = url
    self.logger = logger
    self.waitLimit = waitLimit
  }

  /// Waits for the application's graceful shutdown, then closes the connections.
  public func run() async throws {
    try? await gracefulShutdown()
    await close()
  }

  /// Closes the connections (tests and commands that never run the service).
  public func close() async {
    await connections.close()
  }

  /// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`; a `host`
  /// query item naming a folder connects through the server's unix socket there.
  static func configuration(_ url: String) throws -> PostgresConnection.Configuration {
    let target = try Target(url)
    switch target.place {
    case let .socket(path):
      return .init(unixSocketPath: path, username: target.user, password: target.password, database: target.database)
    case let .host(host, port, mode):
      let tls: PostgresConnection.Configuration.TLS =
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(try .init(configuration: .makeClientConfiguration()))
        case .require: .require(try .init(configuration: .makeClientConfiguration()))
        }
      return .init(host: host, port: port, username: target.user, password: target.password, database: target.database, tls: tls)
    }
  }

  /// What a database URL names.
  private struct Target {
    enum TLSMode { case disable, prefer, require }
    enum Place {
      case socket(String)
      case host(String, port: Int, tls: TLSMode)
    }

    let place: Place
    let user: String
    let password: String?
    let database: String?

    init(_ url: String) throws {
      guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
        throw DatabaseURLError(url: url, reason: "it must start with postgres://")
      }
      let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
      user = components.user ?? "postgres"
      password = components.password
      database = components.path.isEmpty || components.path == "/" ? nil : String(components.path.dropFirst())
      if let socket = query["host"], socket.hasPrefix("/") {
        place = .socket(socket + "/.s.PGSQL.\(components.port ?? 5432)")
        return
      }
      let mode: TLSMode
      switch query["sslmode"] ?? "prefer" {
      case "disable": mode = .disable
      case "prefer", "allow": mode = .prefer
      case "require", "verify-ca", "verify-full": mode = .require
      case let other: throw DatabaseURLError(url: url, reason: "sslmode \(other) is not disable, prefer or require")
      }
      guard let host = components.host, !host.isEmpty else { throw DatabaseURLError(url: url, reason: "it names no host") }
      place = .host(host, port: components.port ?? 5432, tls: mode)
    }
  }

  /// Runs `body` on a connection of the pool, once one is free within `waitLimit`; once `body`
  /// has begun it runs to its end. Errors that mean the database cannot be reached are thrown as
  /// `DatabaseUnavailable`.
  func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
    let connection = try await connections.take(within: waitLimit)
    defer { connections.giveBack(connection) }
    do {
      return try await body(connection)
    } catch {
      throw Self.unavailable(error) ?? error
    }
  }

  /// What PostgresNIO is given to log a statement with when the server logs nothing below `info`:
  /// it logs statements at `debug` and `trace` only, and first adds the connection's number to
  /// the logger's metadata, a copy of the metadata per statement (1.3 % of the server's time
  /// during P2 on PostgreSQL, BENCHMARKS.md) for nothing to be logged.
  static let quiet = Logger(label: "pointapp.postgres") { _ in SwiftLogNoOpLogHandler() }

  /// The deadlines of statements and of waits for a connection: one timer for all of them.
  static let deadlines = Deadlines(every: .milliseconds(50), on: MultiThreadedEventLoopGroup.singleton.next())

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  func transaction<Result: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
    try await withConnection { connection in
      // Stated, whatever the server's default: a holding reads its records after taking its
      // key's lock, and must see what committed while it waited (`PostgresBackend.holding`).
      try await connection.run("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
      do {
        let result = try await body(connection)
        try await connection.run("COMMIT", logger: logger)
        return result
      } catch {
        _ = try? await connection.run("ROLLBACK", logger: logger)
        throw error
      }
    }
  }

  /// Runs one statement and returns its rows: inside a user's update (`OpenTransaction`), on its
  /// connection and in its transaction; elsewhere on a connection of the pool. Nothing inside an
  /// update leases a second connection, which could be waited for while the update's holds what
  /// others wait for.
  @discardableResult
  func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
    if let transaction = OpenTransaction.current { return try await transaction.run(query) }
    return try await withConnection { connection in
      try await connection.run(query, logger: logger)
    }
  }

  /// The error as `DatabaseUnavailable` when it says the database cannot be reached: the
  /// connection failed or was closed, or the server is shutting down or starting up (SQLSTATE
  /// classes 08 and 57P, 53 for its resources). Any other error (a bad statement) is a bug.
  static func unavailable(_ error: any Error) -> DatabaseUnavailable? {
    if let error = error as? DatabaseUnavailable { return error }
    guard let error = error as? PSQLError else { return nil }
    if error.code == .server {
      let state = error.serverInfo?[.sqlState] ?? ""
      guard state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") else { return nil }
      return DatabaseUnavailable(reason: "PostgreSQL: \(error.serverInfo?[.message] ?? state)")
    }
    let unreachable: [PSQLError.Code] = [.connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .queryCancelled]
    guard unreachable.contains(error.code) else { return nil }
    return DatabaseUnavailable(reason: "PostgreSQL: \(error.code)")
  }
}

extension Database {
  /// What a log line says of an error: for PostgreSQL's, the SQLSTATE, the server's message and
  /// the statement, never the values bound to it (addresses, states), which its own description
  /// hides behind a generic text.
  static func loggable(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    let server = error.serverInfo.map { " \($0[.sqlState] ?? "") \($0[.message] ?? "")" } ?? ""
    return "PostgreSQL \(error.code)\(server) in \(error.query?.sql ?? "no statement")"
  }
}

extension PostgresConnection {
  /// The longest a statement may take: a few seconds more than a request's effects may take, so
  /// that waiting for a user's lock held by a slow request of theirs still fits.
  static let statementLimit = Duration.seconds(6)

  /// Runs one statement and returns its rows, failing as `DatabaseUnavailable` when the connection
  /// is closed or the statement has not finished within `limit`.
  ///
  /// PostgresNIO writes a statement to its channel without waiting for the write, so one sent on
  /// a connection the server has just closed (the database stopped between two statements of a
  /// transaction) is never answered: without a limit its request would hang, and hold up the
  /// server's graceful shutdown. Past the limit the connection is closed, so that the pool opens a
  /// new one; the statement's task is left to end when it may.
  @discardableResult
  func run(_ query: PostgresQuery, logger: Logger, limit: Duration = statementLimit) async throws -> [PostgresRow] {
    guard !isClosed else { throw DatabaseUnavailable(reason: "PostgreSQL closed the connection") }
    let outcome = Outcome<[PostgresRow]>()
    let watchdog = Database.deadlines.add(in: limit) {
      if outcome.finish(.failure(DatabaseUnavailable(reason: "PostgreSQL did not answer within \(limit)"))) {
        Task { try? await self.close() }
      }
    }
    // Not cut short when the request's task is cancelled: a transaction's statements, its
    // ROLLBACK above all, run to their end (or the limit), so that no connection goes back to the
    // pool inside a transaction. The statement is PostgresNIO's future (rows collected on the
    // connection's event loop), which no task's cancellation reaches, rather than its row
    // sequence consumed by a task of its own: no task, no async sequence per statement.
    let rows: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger.logLevel > .debug ? Database.quiet : logger)
    rows.whenComplete { result in
      outcome.finish(result.map { Array($0.rows) })
      Database.deadlines.remove(watchdog)
    }
    return try await withCheckedThrowingContinuation { outcome.wait($0) }
  }
}

/// Deadlines checked by one repeating timer on one event loop, every `every`: a deadline passes
/// at most that late. Adding and removing one is a mutex's work, where a timer of its own per
/// statement was scheduled on an event loop from another thread, and cancelled: each a wake-up of
/// that loop's thread, four per statement with the wait for its connection (measured in the
/// profile of a page view on PostgreSQL).
final class Deadlines: Sendable {
  private struct Entries {
    var next: UInt64 = 0
    var due: [UInt64: (deadline: NIODeadline, pass: @Sendable () -> Void)] = [:]
  }

  private let entries = Mutex(Entries())
  private let timer = Mutex<RepeatedTask?>(nil)

  init(every interval: TimeAmount, on loop: any EventLoop) {
    let task = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [weak self] _ in self?.passDue() }
    timer.withLock { $0 = task }
  }

  deinit { timer.withLock { $0?.cancel() } }

  /// Runs `pass` once `duration` from now has passed, unless removed before.
  func add(in duration: Duration, _ pass: @escaping @Sendable () -> Void) -> UInt64 {
    let deadline = NIODeadline.now() + duration.timeAmount
    return entries.withLock { entries in
      entries.next += 1
      entries.due[entries.next] = (deadline, pass)
      return entries.next
    }
  }

  func remove(_ id: UInt64) {
    _ = entries.withLock { $0.due.removeValue(forKey: id) }
  }

  private func passDue() {
    let now = NIODeadline.now()
    let passed = entries.withLock { entries -> [@Sendable () -> Void] in
      let ids = entries.due.compactMap { $0.value.deadline <= now ? $0.key : nil }
      return ids.compactMap { entries.due.removeValue(forKey: $0)?.pass }
    }
    for pass in passed { pass() }
  }
}

extension Duration {
  var timeAmount: TimeAmount {
    .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
  }
}

/// The first of several results, handed to the one waiting for it.
private final class Outcome<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    var result: Result<Value, any Error>?
  }

  private let state = Mutex(State())

  func wait(_ continuation: CheckedContinuation<Value, any Error>) {
    let ready = state.withLock { state -> Result<Value, any Error>? in
      if let result = state.result { return result }
      state.continuation = continuation
      return nil
    }
    if let ready { continuation.resume(with: ready) }
  }

  /// `false` when a result came first.
  @discardableResult
  func finish(_ result: Result<Value, any Error>) -> Bool {
    let (first, waiting) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
      guard state.result == nil else { return (false, nil) }
      state.result = result
      defer { state.continuation = nil }
      return (true, state.continuation)
    }
    waiting?.resume(with: result)
    return first
  }
}

/// The database cannot be reached now: the request is answered 503, and may be tried again.
public struct DatabaseUnavailable: Error, CustomStringConvertible {
  public let reason: String
  public var description: String { reason }
}

public struct DatabaseURLError: Error, CustomStringConvertible {
  public let url: String
  public let reason: String
  /// Never the password.
  public var description: String {
    var shown = URLComponents(string: url)
    if shown?.password != nil { shown?.password = "…" }
    return "the database URL \(shown?.string ?? "(unreadable)") cannot be used: \(reason)"
  }
}

/// The transaction of the holding this task runs in (`PostgresBackend.holding`: a user's update):
/// every statement inside it runs in it (`Database.query`), so a quota place or a session's end
/// commits with the user's state, and no second connection is leased. Closed when the holding's
/// body returns; a statement after that is refused rather than run on a connection back in the
/// pool.
final class OpenTransaction: Sendable {
  @TaskLocal static var current: OpenTransaction?

  private let connection: PostgresConnection
  private let logger: Logger
  private let isOpen = Atomic(true)

  init(_ connection: PostgresConnection, logger: Logger) {
    self.connection = connection
    self.logger = logger
  }

  @discardableResult
  func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
    guard isOpen.load(ordering: .acquiring) else { throw DatabaseUnavailable(reason: "the user's update has ended") }
    return try await connection.run(query, logger: logger)
  }

  func close() {
    isOpen.store(false, ordering: .releasing)
  }
}
