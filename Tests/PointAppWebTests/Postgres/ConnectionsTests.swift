import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import PointAppWeb

/// The instance's connections to PostgreSQL (`Connections`): kept open and handed on, waited for
/// within the limit, and replaced when the server closed one.
@Suite(.enabled(if: TestDatabase.enabled, "PostgreSQL's server is not installed (apt-get install postgresql)"))
struct ConnectionsTests {
  /// The backend serving the connection `body` is given.
  static func backend(of database: Database) async throws -> Int32 {
    try await database.withConnection { connection in
      try await connection.run("SELECT pg_backend_pid()", logger: TestDatabase.logger)[0].decode(Int32.self)
    }
  }

  /// Takes one of `database`'s connections and keeps it until `release` is called.
  final class Holder: Sendable {
    private let taken = AsyncStream<Void>.makeStream()
    private let released = AsyncStream<Void>.makeStream()
    let task: Task<Int32, any Error>

    init(_ database: Database) async {
      let (taken, released) = (taken, released)
      task = Task {
        try await database.withConnection { connection in
          taken.continuation.yield()
          for await _ in released.stream { break }
          return try await connection.run("SELECT pg_backend_pid()", logger: TestDatabase.logger)[0].decode(Int32.self)
        }
      }
      for await _ in taken.stream { break }
    }

    func release() async throws -> Int32 {
      released.continuation.yield()
      return try await task.value
    }
  }

  @Test func aConnectionGivenBackIsTheOneTheNextWaiterGets() async throws {
    let database = try await TestDatabase.make(migrated: false, poolSize: 1)
    let first = try await Self.backend(of: database)
    #expect(try await Self.backend(of: database) == first, "kept open between uses")
    let holder = await Holder(database)
    let waiter = Task { try await Self.backend(of: database) }
    try await Task.sleep(for: .milliseconds(200))
    #expect(try await holder.release() == first)
    #expect(try await waiter.value == first, "handed on, not a second one opened")
  }

  @Test func noConnectionWithinTheLimitIsUnavailableAndTakesNothing() async throws {
    let database = try await TestDatabase.make(migrated: false, poolSize: 1, waitLimit: .milliseconds(300))
    let holder = await Holder(database)
    let started = ContinuousClock.now
    await #expect(throws: DatabaseUnavailable.self) { try await Self.backend(of: database) }
    #expect(ContinuousClock.now - started >= .milliseconds(300))
    let held = try await holder.release()
    #expect(try await Self.backend(of: database) == held, "the wait that gave up left the connection to the next")
  }

  @Test func aCancelledWaitLeavesTheConnectionToTheNext() async throws {
    let database = try await TestDatabase.make(migrated: false, poolSize: 1)
    let holder = await Holder(database)
    let cancelled = Task { try await Self.backend(of: database) }
    try await Task.sleep(for: .milliseconds(200))
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    let held = try await holder.release()
    #expect(try await Self.backend(of: database) == held)
  }

  /// A wait's deadline can pass as its connection comes: the timer then ends a wait that is over,
  /// which must leave nothing behind (an entry kept for each would grow without end).
  @Test func aDeadlineThatPassesAfterItsWaitIsOverKeepsNothing() async throws {
    let database = try await TestDatabase.make(migrated: false, poolSize: 1)
    let holder = await Holder(database)
    let waiter = Task { try await Self.backend(of: database) }
    try await Task.sleep(for: .milliseconds(200))
    _ = try await holder.release()
    _ = try await waiter.value
    database.connections.stopWaiting(1, DatabaseUnavailable(reason: "the first wait's deadline, late"))
    #expect(database.connections.endedWaits == 0)
  }

  @Test func aConnectionTheServerClosedIsReplaced() async throws {
    let database = try await TestDatabase.make(migrated: false, poolSize: 1)
    let first = try await Self.backend(of: database)
    try await TestDatabase.admin.value.query("SELECT pg_terminate_backend(\(first))")
    try await Task.sleep(for: .milliseconds(300))
    let second = try await Self.backend(of: database)
    #expect(second != first)
    #expect(try await Self.backend(of: database) == second)
  }

  /// PostgresNIO logs what a statement brings at `debug` and below (its rows at `trace`): a server
  /// logging at `trace` has those lines; one logging at `info` or above hands PostgresNIO a logger
  /// that drops everything (`Database.quiet`), on which it sets the statement's connection
  /// number rather than on a copy of the server's metadata.
  @Test(arguments: [Logger.Level.trace, .info])
  func aStatementsRowsAreLoggedAtTrace(_ level: Logger.Level) async throws {
    let lines = Mutex<[String]>([])
    let metadataSet = Mutex(0)
    var logger = Logger(label: "pointapp") { label in
      CountingHandler(base: JSONLogHandler(label: label, write: { line in lines.withLock { $0.append(line) } })) {
        metadataSet.withLock { $0 += 1 }
      }
    }
    logger.logLevel = level
    let created = try await TestDatabase.make(migrated: false, poolSize: 1)
    await created.close()
    let database = try Database(url: created.url, poolSize: 1, waitLimit: .seconds(10), logger: logger)
    _ = try await database.query("SELECT 1")  // the connection made, its own metadata set
    let (linesBefore, setBefore) = (lines.withLock { $0.count }, metadataSet.withLock { $0 })
    let answer = try await database.query("SELECT 41 + 1").first?.decode(Int.self)
    await database.close()
    #expect(answer == 42)
    // The statement's own line; the connection's lines (each message it reads) come at `trace` too.
    let rows = lines.withLock { $0.dropFirst(linesBefore) }.filter { $0.contains("Row stream received rows") }
    if level == .trace {
      #expect(rows.count == 1, "\(lines.withLock { $0 })")
    } else {
      #expect(lines.withLock { $0 }.isEmpty && metadataSet.withLock { $0 } == setBefore, "nothing logged, no metadata set")
    }
  }

  /// A log handler that counts the metadata set on it (PostgresNIO sets a statement's connection).
  struct CountingHandler: LogHandler {
    var base: JSONLogHandler
    let metadataSet: @Sendable () -> Void

    var logLevel: Logger.Level {
      get { base.logLevel }
      set { base.logLevel = newValue }
    }
    var metadata: Logger.Metadata {
      get { base.metadata }
      set { base.metadata = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { base[metadataKey: key] }
      set {
        metadataSet()
        base[metadataKey: key] = newValue
      }
    }
    func log(event: LogEvent) { base.log(event: event) }
  }
}
