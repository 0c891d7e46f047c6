import Foundation
import HummingbirdTesting
import PointApp
import PostgresNIO
import Synchronization
import Testing

@testable import PointAppWeb

/// PointApp on PostgreSQL: the schema's migrations, several instances on one database, and
/// what a request gets while the database cannot be reached.
@Suite(.enabled(if: TestDatabase.enabled, "PostgreSQL's server is not installed (apt-get install postgresql)"))
struct PostgresTests {
  @Test func instancesStartingTogetherMigrateOnce() async throws {
    let database = try await TestDatabase.make(migrated: false)
    #expect(try await Schema.pending(in: database) == Schema.migrations)
    let instances = try (0..<4).map { _ in try TestDatabase.another(database, poolSize: 2) }
    let applied = try await withThrowingTaskGroup(of: Int.self) { group in
      for instance in instances {
        group.addTask { try await Schema.migrate(instance).count }
      }
      return try await group.reduce(0, +)
    }
    #expect(applied == Schema.migrations.count)
    #expect(try await Schema.pending(in: database) == [])
    let versions = try await database.query("SELECT version FROM pointapp_migrations ORDER BY version").map { try $0.decode(Int.self) }
    #expect(versions == Schema.migrations.map(\.version))
    #expect(try await Schema.migrate(database) == [])
  }

  @Test func aDatabaseMigratedByANewerProgramIsRefused() async throws {
    let database = try await TestDatabase.make()
    try await database.query("INSERT INTO pointapp_migrations (version, name) VALUES (\(Schema.latest + 1), 'from the future')")
    let error = await #expect(throws: SchemaTooNew.self) { try await Schema.migrate(database) }
    #expect(error?.description.contains("version \(Schema.latest + 1), newer than this program's (\(Schema.latest))") == true)
    await #expect(throws: SchemaTooNew.self) { try await Schema.pending(in: database) }
  }

  @Test func theDatabaseURLIsRead() throws {
    let tcp = try Database.configuration("postgres://ann:s%40cret@db.example:6543/points?sslmode=disable")
    #expect(tcp.host == "db.example")
    #expect(tcp.port == 6543)
    #expect(tcp.username == "ann")
    #expect(tcp.password == "s@cret")
    #expect(tcp.database == "points")
    let socket = try Database.configuration("postgres://ann@/points?host=/run/postgresql")
    #expect(socket.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
    let wrong = #expect(throws: DatabaseURLError.self) { try Database.configuration("mysql://ann:secret@db/points") }
    #expect(wrong?.description.contains("secret") == false)
    #expect(throws: DatabaseURLError.self) { try Database.configuration("postgres://ann@db/points?sslmode=sometimes") }
  }

  /// Nothing listens where the database should be: a page that needs it is a 503 page with
  /// Retry-After, within the wait limit, and nothing is left half done.
  @Test func whileTheDatabaseCannotBeReachedRequestsAre503() async throws {
    let socket = try ServerSocketPort.free()
    let database = try Database(url: "postgres://pointapp@127.0.0.1:\(socket)/pointapp?sslmode=disable", poolSize: 2, waitLimit: .milliseconds(500), logger: TestDatabase.logger)
    await #expect(throws: DatabaseUnavailable.self) { try await UserStates(PostgresBackend(database)).read(.random()) }
    let folder = scratch("down")
    let app = try await buildApplication(
      {
        var configuration = AppConfiguration()
        configuration.templatesDirectory = repositoryRoot.appendingPathComponent("Templates")
        configuration.publicDirectory = repositoryRoot.appendingPathComponent("Public")
        configuration.dataDirectory = folder
        return configuration
      }(),
      backend: Unreachable(rows: PostgresBackend(database), files: try FileBackend(folder)), secret: secret, passwordHasher: TestServer.hasher
    ) { $0.date.now = noon; $0.surveyClient = .catalog(testCatalog) }
    try await app.test(.router) { client in
      let cookie = TestServer.cookie(for: SessionID.random())
      let started = ContinuousClock.now
      let page = try await client.execute(uri: "/points", method: .get, headers: [.cookie: cookie])
      #expect(page.status == .serviceUnavailable)
      #expect(page.headers[.retryAfter] == "5")
      #expect(page.html.contains("ただいま混み合っています"))
      let form = try await client.execute(
        uri: "/surveys/sweets/answers", method: .post,
        headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "q%5Bsatisfaction%5D=3")
      )
      #expect(form.status == .serviceUnavailable)
      // Its waits are 0.5 s each; a statement left hanging would take its limit (6 s) at least.
      // (3.8 s once, on a slow machine running the whole suite.)
      #expect(ContinuousClock.now - started < PostgresConnection.statementLimit)
    }
    await database.close()
  }

  /// A request cancelled in the middle of its update (its client went away) rolls the update back
  /// and puts its connection back out of any transaction: the user's lock is released and the
  /// one connection serves the next update.
  @Test func aCancelledUpdateLeavesNoTransactionOpen() async throws {
    let database = try await TestDatabase.make(poolSize: 1)
    let store = UserStates(PostgresBackend(database))
    let user = UserID.random()
    let (started, signal) = AsyncStream.makeStream(of: Void.self)
    let update = Task {
      try await store.update(user) { _ in
        signal.yield()
        try await Task.sleep(for: .seconds(30))
        return (UserSave(state: Data("never".utf8)), ())
      }
    }
    for await _ in started { break }
    update.cancel()
    _ = await update.result
    let other = try TestDatabase.another(database, poolSize: 1)
    // This database's advisory locks only: other tests run beside this one on the cluster.
    let locks = try await other.query(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    ).first?.decode(Int.self)
    #expect(locks == 0)
    try await store.update(user) { saved in (saved == nil ? UserSave(state: Data("next".utf8)) : nil, ()) }
    #expect(try await UserStates(PostgresBackend(other)).read(user) == Data("next".utf8))
  }

  /// A record that users' updates change (a survey's counts, by everyone who answers it) is read
  /// for update: the second of two updates waits for the first to commit, then changes what it
  /// committed, once, instead of reading the old record, losing to the first and starting again.
  @Test func aRecordChangedByTwoUpdatesAtOnceIsChangedOnceByEach() async throws {
    let database = try await TestDatabase.make()
    let users = UserStates(PostgresBackend(database))
    let counter = Records<UserID, Int>(PostgresRecordStorage(database, table: "responses"))
    let key = UserID.random()
    #expect(try await counter.create(0, as: key))
    let changes = Mutex(0)
    @Sendable func increment() async throws {
      try await counter.modify(key) { value in
        changes.withLock { $0 += 1 }
        return ((value ?? 0) + 1, ())
      }
    }
    let (changed, signal) = AsyncStream.makeStream(of: Void.self)
    let first = Task {
      try await users.update(.random()) { _ in
        try await increment()
        signal.yield()
        // The second update reads the record meanwhile.
        try await Task.sleep(for: .milliseconds(300))
        return (UserSave(state: Data("first".utf8)), ())
      }
    }
    for await _ in changed { break }
    try await users.update(.random()) { _ in
      try await increment()
      return (UserSave(state: Data("second".utf8)), ())
    }
    try await first.value
    #expect(try await counter.read(key)?.record == 2)
    #expect(changes.withLock { $0 } == 2)
  }

  /// A statement the database refuses is a bug, not an outage: it is not turned into a 503.
  @Test func aRefusedStatementIsNotAnOutage() async throws {
    let database = try await TestDatabase.shared.value
    do {
      try await database.query("SELECT * FROM no_such_table WHERE email = \("private@example.jp")")
      Issue.record("the statement ran")
    } catch {
      #expect(!(error is DatabaseUnavailable))
      #expect(Database.unavailable(error) == nil)
      // Its log line says what failed, never the values bound to the statement.
      let logged = Database.loggable(error)
      #expect(logged.contains("42P01"))
      #expect(logged.contains("SELECT * FROM no_such_table"))
      #expect(!logged.contains("private@example.jp"))
    }
  }

  /// Everything a sign-in does inside the user's update (the login limits, the account, ending the
  /// session, taking the guest into the account's user) runs on the update's own connection: with
  /// a pool of one, any second lease would wait for the first and answer 503.
  @Test func signingInOnAPoolOfOneLeasesNoSecondConnection() async throws {
    let database = try await TestDatabase.make()
    let server = try TestServer()
    try await server.application(databaseURL: database.url, poolSize: 1).test(.router) { client in
      var (phone, csrf) = try await AccountTests.guest(client)
      let registered = try await phone.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(registered.headers[.location] == "/points")
      var desktop = Browser(client: client)
      try await desktop.get("/surveys")
      let token = try await desktop.csrf(from: "/surveys/breakfast")
      let answered = try await desktop.post("/surveys/sweets/answers", form: "csrf=\(token)&q%5Bsatisfaction%5D=5")
      #expect(answered.headers[.location] == "/surveys/sweets/complete")
      let loginCSRF = try await desktop.csrf(from: "/login")
      let wrong = try await desktop.post("/login", form: "csrf=\(loginCSRF)&email=hanako%40example.jp&password=wrong+guess+here")
      #expect(wrong.headers[.location] == "/login")
      let loggedIn = try await desktop.post("/login", form: "csrf=\(loginCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(loggedIn.headers[.location] == "/points")
      #expect(AccountTests.balance(try await desktop.get("/points")) == "60pt", "one survey answered on both devices pays once")
      let accountCSRF = try await desktop.csrf(from: "/account")
      let changed = try await desktop.post("/account/password", form: "csrf=\(accountCSRF)&current=correct+horse+battery&new=a+brand+new+passphrase")
      #expect(changed.headers[.location] == "/account")
    }
  }

  /// A browser whose requests alternate between two instances sees, on each page, what its form
  /// just did on the other, though the other had the page's session and state in its cache.
  @Test func aPageAfterAFormOnAnotherInstanceShowsWhatItDid() async throws {
    let catalog = ConcurrencyTests.catalog
    try await Self.twoInstances(catalog) { first, second, browser, csrf in
      var browser = browser
      var paid = 0
      for (number, survey) in catalog.prefix(12).enumerated() {
        let (here, there) = number.isMultiple(of: 2) ? (first, second) : (second, first)
        var reader = Browser(client: there, cookie: browser.cookie, state: browser.state)
        try await reader.get("/points")
        try await reader.get("/points")
        var writer = Browser(client: here, cookie: browser.cookie, state: browser.state)
        let answered = try await writer.post("/surveys/\(survey.id.rawValue)/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=3")
        #expect(answered.headers[.location] == "/surveys/\(survey.id.rawValue)/complete")
        paid += survey.reward.value
        reader.state = writer.state
        #expect(AccountTests.balance(try await reader.get("/points")) == "\(paid)pt")
        browser.state = writer.state
      }
    }
  }

  /// Two instances of the application on one new database, and a guest's browser on the first
  /// with a form's CSRF token.
  @discardableResult
  static func twoInstances(
    _ catalog: [Survey],
    _ body: @Sendable (_ first: any TestClientProtocol, _ second: any TestClientProtocol, _ browser: Browser, _ csrf: String) async throws -> Void
  ) async throws -> Database {
    let database = try await TestDatabase.make()
    let server = try TestServer()
    let one = try await server.application(catalog: catalog, databaseURL: database.url)
    let two = try await server.application(catalog: catalog, databaseURL: database.url)
    try await one.test(.router) { first in
      try await two.test(.router) { second in
        var browser = Browser(client: first)
        try await browser.get("/surveys")
        let csrf = try await browser.csrf(from: "/surveys/s0")
        try await body(first, second, browser, csrf)
      }
    }
    return database
  }

  /// Two instances on one database, one user's 24 submissions of a survey at once, half through
  /// each, and every other survey once: each pays once. (They queue for the user's lock, each
  /// wait bounded by the statement limit of 6 s: 50 of them outlasted it on a busy CI.)
  @Test func twoInstancesPayEachSurveyOnce() async throws {
    let catalog = ConcurrencyTests.catalog
    let database = try await Self.twoInstances(catalog) { first, second, browser, csrf in
      let cookie = browser.cookie
      let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        let posts = Array(repeating: "s0", count: 24) + catalog.dropFirst().map(\.id.rawValue)
        for (number, survey) in posts.enumerated() {
          group.addTask {
            var copy = Browser(client: number.isMultiple(of: 2) ? first : second, cookie: cookie)
            return Int(try await copy.post("/surveys/\(survey)/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=3").status.code)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(statuses == Array(repeating: 303, count: 24 + catalog.count - 1))
    }
    let rows = try await database.query("SELECT record FROM users")
    #expect(rows.count == 1)
    let ledger = try SavedState.state(from: Data(try #require(rows.first).decode(String.self).utf8)).progress.ledger
    #expect(ledger.count == catalog.count)
    #expect(ledger.balance.value == catalog.reduce(0) { $0 + $1.reward.value })
  }
}

enum ServerSocketPort {
  /// A loopback port nothing listens on.
  static func free() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// Users, sessions and accounts in a database that cannot be reached; the catalog and the rest
/// in a folder, so that the server starts.
struct Unreachable: RecordBackend {
  let rows: PostgresBackend
  let files: FileBackend

  func table(_ kind: RecordKind) -> any RecordStorage {
    [.users, .sessions, .accounts].contains(kind) ? rows.table(kind) : files.table(kind)
  }

  func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    try await rows.holding(key, body)
  }
}
