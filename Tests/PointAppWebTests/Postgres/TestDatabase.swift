import Foundation
import Logging
import PostgresNIO
import Testing

@testable import PointAppWeb

/// PostgreSQL for the tests: the cluster at `POINTAPP_TEST_DATABASE_URL`, or a throwaway one that
/// `Scripts/pgcluster.py` starts on first use (Debian's `postgresql` package) and stops when the
/// tests end. Each test that needs a database of its own gets a new, empty one on it.
///
/// Where the server is not installed (or `POINTAPP_TEST_POSTGRES=off`) the PostgreSQL cases are
/// reported skipped, with the reason; CI sets `POINTAPP_TEST_POSTGRES=required`, which makes them
/// run, and fail, whatever is installed.
enum TestDatabase {
  static let environment = ProcessInfo.processInfo.environment

  static var enabled: Bool {
    if environment["POINTAPP_TEST_POSTGRES"] == "off" { return false }
    return environment["POINTAPP_TEST_DATABASE_URL"] != nil || environment["POINTAPP_TEST_POSTGRES"] == "required"
      || FileManager.default.fileExists(atPath: "/usr/lib/postgresql")
  }

  static let notInstalled: Comment = "PostgreSQL's server is not installed (apt-get install postgresql)"

  /// The shared database (`shared`); where there is none, the test case asking is skipped
  /// (cancelled), and says so with the reason on standard error: the test library's console
  /// counts a cancelled case among those passed and prints nothing of it.
  static func database() async throws -> Database {
    guard enabled else {
      let name = Test.current.map { "\($0.name) on PostgreSQL" } ?? "a PostgreSQL case"
      FileHandle.standardError.write(Data("⊘ \(name) skipped: \(notInstalled.rawValue)\n".utf8))
      try Test.cancel(notInstalled)
    }
    return try await shared.value
  }

  static let logger: Logger = {
    var logger = Logger(label: "pointapp-tests-postgres")
    logger.logLevel = .error
    return logger
  }()

  /// The cluster's URL, its database `pointapp`.
  static let url: String = {
    if let url = environment["POINTAPP_TEST_DATABASE_URL"] { return url }
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", repositoryRoot.appendingPathComponent("Scripts/pgcluster.py").path, "start", clusterFolder]
    process.standardOutput = output
    do {
      try process.run()
    } catch {
      fatalError("cannot run Scripts/pgcluster.py: \(error)")
    }
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0, let url = printed.split(separator: "\n").last.map(String.init) else {
      fatalError("Scripts/pgcluster.py could not start PostgreSQL (apt-get install postgresql): \(printed)")
    }
    atexit {
      let stop = Process()
      stop.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      stop.arguments = ["python3", repositoryRoot.appendingPathComponent("Scripts/pgcluster.py").path, "stop", clusterFolder]
      try? stop.run()
      stop.waitUntilExit()
      try? FileManager.default.removeItem(atPath: clusterFolder)  // its data: 600 MB a run
    }
    return url
  }()

  static let clusterFolder = FileManager.default.temporaryDirectory
    .appendingPathComponent("pointapp-tests-postgres-\(ProcessInfo.processInfo.processIdentifier)").path

  /// The cluster's own database, where new ones are made (one at a time each: many tests may wait).
  static let admin = Task {
    // Starting the cluster waits for a child process: on a thread of its own, not the pool's.
    let url = try await offThePool { TestDatabase.url }
    return try Database(url: url, poolSize: 2, waitLimit: waitLimit, logger: logger)
  }

  /// How long the tests' pools wait for a connection: the whole suite's tests share one cluster,
  /// and on a slow machine (2 cores, `/healthz` at a third of the usual rate) their pools waited
  /// more than 10 s for one another's statements.
  static let waitLimit = Duration.seconds(60)

  /// A new, empty database (migrated unless `migrated` is false), with a pool of its own.
  static func make(migrated: Bool = true, poolSize: Int = 4, waitLimit: Duration = TestDatabase.waitLimit) async throws -> Database {
    let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try await admin.value.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
    let database = try Database(url: url(of: name), poolSize: poolSize, waitLimit: waitLimit, logger: logger)
    if migrated { try await Schema.migrate(database) }
    return database
  }

  /// Another pool on `database`'s database: what a second instance has.
  static func another(_ database: Database, poolSize: Int = 4) throws -> Database {
    try Database(url: database.url, poolSize: poolSize, waitLimit: database.waitLimit, logger: logger)
  }

  static func url(of name: String) -> String {
    var components = URLComponents(string: url)!
    components.path = "/" + name
    return components.string!
  }

  /// One migrated database that tests share, each with ids of its own.
  static let shared = Task { try await make() }
}
