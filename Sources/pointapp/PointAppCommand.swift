import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import PointApp
import PointAppWeb
#if canImport(Glibc)
import Glibc
#endif

/// PointApp's commands: `serve` (the default), `migrate`, `import-files`, `create-operator`, `audit verify`,
/// `exchanges reconcile`. Every option also
/// reads an environment variable; flags win.
@main
struct PointAppCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pointapp",
    abstract: "PointApp: a point-earning survey app served as plain HTML.",
    subcommands: [Serve.self, Migrate.self, ImportFiles.self, CreateOperator.self, Audit.self, Exchanges.self],
    defaultSubcommand: Serve.self
  )

  /// Tasks run on NIO's event loops, the threads that read and write the connections, instead of
  /// a pool of their own: a request's task starts on its connection's loop and stays there, so a
  /// page view no longer hands its request and its response between threads (a quarter less CPU
  /// per page, BENCHMARKS.md). Nothing here blocks a thread: files and bcrypt have their own
  /// thread pools, and PostgreSQL's connections are on the same loops.
  static func main() async {
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    await main(nil)
  }
}

/// Where the data lives when it is not the data folder.
struct DatabaseOptions: ParsableArguments {
  @Option(help: "Keep everything in this PostgreSQL database (postgres://user:password@host:port/name?sslmode=disable), shared by every instance that names it, instead of the data folder (POINTAPP_DATABASE_URL).")
  var databaseURL = ProcessInfo.processInfo.environment["POINTAPP_DATABASE_URL"]

  @Option(help: "The most connections an instance opens to the database (POINTAPP_DATABASE_POOL_SIZE).")
  var databasePoolSize = Int(ProcessInfo.processInfo.environment["POINTAPP_DATABASE_POOL_SIZE"] ?? "") ?? 20

  func open(logger: Logger) throws -> Database {
    guard let databaseURL else { throw ValidationError("--database-url (or POINTAPP_DATABASE_URL) is needed") }
    return try Database(url: databaseURL, poolSize: databasePoolSize, logger: logger)
  }

  /// Runs `body` with the backend: the database's when a URL is given (its schema brought up to
  /// date first), otherwise the data folder's.
  func withBackend<Result>(data: String, _ body: (any RecordBackend) async throws -> Result) async throws -> Result {
    guard databaseURL != nil else { return try await body(try FileBackend(URL(fileURLWithPath: data))) }
    let database = try open(logger: Logger(label: "pointapp"))
    do {
      try await Schema.migrate(database)
      let result = try await body(PostgresBackend(database))
      await database.close()
      return result
    } catch {
      await database.close()
      throw error
    }
  }
}

/// The file of the keys gift codes are sealed with (`CodeKeys`).
struct CodeKeyOptions: ParsableArguments {
  @Option(help: "The file of the keys gift codes are sealed with at rest, outside the data folder, made on first start when missing (POINTAPP_CODE_KEYS; default: DATA.code-keys beside the data folder; required with --database-url, every instance naming the same file).")
  var codeKeys = ProcessInfo.processInfo.environment["POINTAPP_CODE_KEYS"]

  /// The file for a data folder `data`, or for the database when `database`.
  func file(data: String, database: Bool) throws -> URL {
    try Self.file(codeKeys, data: data, database: database)
  }

  /// `codeKeys` when given; otherwise `DATA.code-keys` beside the data folder, but never for the
  /// database (each instance would make its own).
  static func file(_ codeKeys: String?, data: String, database: Bool) throws -> URL {
    if let codeKeys { return URL(fileURLWithPath: codeKeys) }
    guard !database else {
      throw ValidationError("--code-keys FILE (or POINTAPP_CODE_KEYS) is needed with --database-url: every instance must seal gift codes with the same keys")
    }
    let folder = URL(fileURLWithPath: data).standardizedFileURL
    return folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + ".code-keys")
  }
}

/// Where mail goes and what it says of its sender.
struct MailOptions: ParsableArguments {
  static let environment = ProcessInfo.processInfo.environment

  @Option(help: "The site's address as members reach it, for the links in mail (POINTAPP_SITE_URL; default http://HOSTNAME:PORT).")
  var siteURL = environment["POINTAPP_SITE_URL"]

  @Option(help: "Send mail through this SMTP server, host:port, instead of writing it to mail-outbox/ in the data folder (POINTAPP_SMTP).")
  var smtp = environment["POINTAPP_SMTP"]

  @Flag(help: "Speak to the SMTP server without STARTTLS: only for a relay on this machine (POINTAPP_SMTP_PLAIN=1).")
  var smtpPlain = environment["POINTAPP_SMTP_PLAIN"] == "1"

  @Option(help: "PEM certificates to trust for the SMTP server instead of the system's (POINTAPP_SMTP_CA).")
  var smtpCA = environment["POINTAPP_SMTP_CA"]

  @Option(help: "A file whose first line is the SMTP user name and second its password (POINTAPP_SMTP_CREDENTIALS); or set POINTAPP_SMTP_USERNAME and POINTAPP_SMTP_PASSWORD. Never a flag.")
  var smtpCredentials = environment["POINTAPP_SMTP_CREDENTIALS"]

  @Option(help: "The address mail is from (POINTAPP_MAIL_FROM).")
  var mailFrom = environment["POINTAPP_MAIL_FROM"] ?? MailSettings().fromAddress

  @Option(help: "The sender's name every message ends with (POINTAPP_MAIL_SENDER).")
  var mailSender = environment["POINTAPP_MAIL_SENDER"] ?? MailSettings().senderName

  @Option(help: "The sender's postal address every message ends with, as 特定電子メール法 asks (POINTAPP_MAIL_POSTAL_ADDRESS).")
  var mailPostalAddress = environment["POINTAPP_MAIL_POSTAL_ADDRESS"] ?? MailSettings().postalAddress

  @Option(help: "Where members get in touch, every message ends with it (POINTAPP_MAIL_CONTACT).")
  var mailContact = environment["POINTAPP_MAIL_CONTACT"] ?? MailSettings().contact

  @Option(help: "Invitations or expiry warnings queued at most a second by each pass: a survey's invitations, a day's warnings (POINTAPP_NOTICE_RATE).")
  var noticeRate = environment["POINTAPP_NOTICE_RATE"].flatMap(Int.init) ?? AppConfiguration().noticeRate

  /// The settings, with the site at `defaultSite` unless set.
  func apply(to configuration: inout AppConfiguration, defaultSite: String) throws {
    guard noticeRate > 0 else { throw ValidationError("--notice-rate wants a positive number") }
    configuration.noticeRate = noticeRate
    configuration.mail.siteURL = siteURL ?? defaultSite
    (configuration.mail.fromAddress, configuration.mail.senderName) = (mailFrom, mailSender)
    (configuration.mail.postalAddress, configuration.mail.contact) = (mailPostalAddress, mailContact)
    guard let smtp else { return }
    guard let colon = smtp.lastIndex(of: ":"), let port = Int(smtp[smtp.index(after: colon)...]) else {
      throw ValidationError("--smtp wants host:port, got \(smtp)")
    }
    var server = SMTPServer(host: String(smtp[..<colon]), port: port)
    server.startTLS = !smtpPlain
    server.trustedCertificates = smtpCA
    if let file = smtpCredentials {
      guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw ValidationError("cannot read \(file)") }
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .newlines) }
      guard lines.count >= 2, !lines[0].isEmpty else { throw ValidationError("\(file): the user name on the first line, the password on the second") }
      (server.username, server.password) = (lines[0], lines[1])
    } else if let username = Self.environment["POINTAPP_SMTP_USERNAME"] {
      (server.username, server.password) = (username, Self.environment["POINTAPP_SMTP_PASSWORD"] ?? "")
    }
    configuration.smtp = server
  }
}

/// Serves PointApp until SIGTERM or SIGINT.
struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Serve the site (the default command).")

  @Option(help: "Address to listen on (POINTAPP_HOST).")
  var hostname = ProcessInfo.processInfo.environment["POINTAPP_HOST"] ?? "127.0.0.1"

  @Option(help: "Port to listen on (POINTAPP_PORT).")
  var port = Int(ProcessInfo.processInfo.environment["POINTAPP_PORT"] ?? "") ?? 8080

  @Option(help: "Folder for users' data, created on first run (POINTAPP_DATA).")
  var data = ProcessInfo.processInfo.environment["POINTAPP_DATA"] ?? "data"

  @Option(help: "Templates folder (POINTAPP_TEMPLATES).")
  var templates = ProcessInfo.processInfo.environment["POINTAPP_TEMPLATES"] ?? "Templates"

  @Option(name: .customLong("public"), help: "Static files folder (POINTAPP_PUBLIC).")
  var publicFolder = ProcessInfo.processInfo.environment["POINTAPP_PUBLIC"] ?? "Public"

  @Option(help: "trace, debug, info, notice, warning, error or critical (LOG_LEVEL).")
  var logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"

  @Option(help: "text, or json for log shippers: one object per line (POINTAPP_LOG_FORMAT).")
  var logFormat = ProcessInfo.processInfo.environment["POINTAPP_LOG_FORMAT"] ?? "text"

  @Option(help: "Serve Prometheus metrics at /metrics on this port, never the public one; off unless set (POINTAPP_METRICS_PORT).")
  var metricsPort = Int(ProcessInfo.processInfo.environment["POINTAPP_METRICS_PORT"] ?? "")

  @Option(help: "Addresses of proxies trusted to name the client in X-Forwarded-For, comma-separated (POINTAPP_TRUSTED_PROXIES).")
  var trustedProxies = ProcessInfo.processInfo.environment["POINTAPP_TRUSTED_PROXIES"] ?? ""

  @Option(help: "Logins, registrations, resets and mailed links opened that one client address may try in a minute, members and operators each: more where many members share an address, as behind a carrier's NAT (POINTAPP_LOGINS_PER_MINUTE).")
  var loginsPerMinute = Int(ProcessInfo.processInfo.environment["POINTAPP_LOGINS_PER_MINUTE"] ?? "") ?? LoginLimits.attemptsPerMinute

  @OptionGroup var database: DatabaseOptions

  @Flag(help: "Mark the session cookie Secure, for serving behind HTTPS (POINTAPP_SECURE_COOKIES=1).")
  var secureCookies = ProcessInfo.processInfo.environment["POINTAPP_SECURE_COOKIES"] == "1"

  @Option(help: "A support desk adjustment of more points than this (either way) waits for a second operator's approval (POINTAPP_APPROVAL_ABOVE).")
  var approvalAbove = Int(ProcessInfo.processInfo.environment["POINTAPP_APPROVAL_ABOVE"] ?? "") ?? 10_000

  @Option(help: "An adjustment that takes its operator's adjustments of the day (JST) past this waits for approval too (POINTAPP_APPROVAL_DAILY).")
  var approvalDaily = Int(ProcessInfo.processInfo.environment["POINTAPP_APPROVAL_DAILY"] ?? "") ?? 50_000

  @OptionGroup var mail: MailOptions

  @OptionGroup var codeKeys: CodeKeyOptions

  @Option(help: "Order exchanges' codes from this gift provider, http(s)://host[:port] (Deploy/gift-provider-api.yaml), instead of the built-in issuer whose codes work nowhere (POINTAPP_GIFT_PROVIDER).")
  var giftProvider = ProcessInfo.processInfo.environment["POINTAPP_GIFT_PROVIDER"]

  @Option(help: "The file holding the provider's credentials, \"<key id>:<secret>\" on one line (POINTAPP_GIFT_PROVIDER_CREDENTIALS). Never a flag's value.")
  var giftProviderCredentials = ProcessInfo.processInfo.environment["POINTAPP_GIFT_PROVIDER_CREDENTIALS"]

  @Option(help: "How long a call to the provider may take, 1 to 30 seconds (POINTAPP_GIFT_PROVIDER_TIMEOUT).")
  var giftProviderTimeout = Int(ProcessInfo.processInfo.environment["POINTAPP_GIFT_PROVIDER_TIMEOUT"] ?? "") ?? 10

  @Flag(help: "Take the built-in issuer's fault settings from the environment (POINTAPP_GIFT_*, POINTAPP_EXCHANGE_SWEEP_SECONDS): for the crash test and the scale-out proof, never for real members (POINTAPP_TEST_FAULTS=1).")
  var testFaults = ProcessInfo.processInfo.environment["POINTAPP_TEST_FAULTS"] == "1"

  func run() async throws {
    #if canImport(Glibc)
    // glibc gives each thread that allocates an arena of its own, up to eight a core, and keeps
    // in each what its thread freed: the file threads, the event loops and the tasks' pool spread
    // the same work over a dozen. Measured with 30,000 invitations: RSS growth 51.6 MB with the
    // default, 14.7 MB with two arenas, and the pass faster (BENCHMARKS.md, issue 38).
    // And each arena keeps a megabyte free at its top when it gives memory back. With none kept
    // (the default), a page's buffer (16 KB) freed after each view was handed back to the kernel
    // (`madvise`) and faulted in again by the next view's: on PostgreSQL, 4 % of a `/surveys`
    // view's samples (BENCHMARKS.md, issue 41, sixteenth session). At most 2 MB more resident,
    // with two arenas.
    // (`mallopt` is not in Swift's Glibc module; M_ARENA_MAX is -8 in <malloc.h>, M_TOP_PAD -2.)
    if let mallopt = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
      let set = unsafeBitCast(mallopt, to: (@convention(c) (Int32, Int32) -> Int32).self)
      _ = set(-8, 2)
      _ = set(-2, 1 << 20)
    }
    #endif
    var configuration = AppConfiguration()
    configuration.hostname = hostname
    configuration.port = port
    configuration.dataDirectory = URL(fileURLWithPath: data)
    configuration.templatesDirectory = URL(fileURLWithPath: templates)
    configuration.publicDirectory = URL(fileURLWithPath: publicFolder)
    configuration.secureCookies = secureCookies
    configuration.databaseURL = database.databaseURL
    configuration.databasePoolSize = database.databasePoolSize
    configuration.codeKeysFile = try codeKeys.file(data: data, database: database.databaseURL != nil)
    configuration.adjustmentPolicy = AdjustmentPolicy(singleLimit: approvalAbove, dailyLimit: approvalDaily)
    try mail.apply(to: &configuration, defaultSite: "http://\(hostname):\(port)")
    if let giftProvider {
      guard let giftProviderCredentials else { throw ValidationError("--gift-provider needs --gift-provider-credentials FILE") }
      // At most 30 s: a pass may make three calls (status, order, cancellation) within the
      // fulfiller's 120 s claim.
      guard (1...30).contains(giftProviderTimeout) else { throw ValidationError("--gift-provider-timeout wants 1 to 30 seconds") }
      var settings = GiftProviderSettings(url: giftProvider, credentialsFile: giftProviderCredentials)
      settings.timeout = .seconds(giftProviderTimeout)
      configuration.giftProvider = settings
    }
    // For the crash test and the scale-out proof only: an issuer that rejects and is slow.
    let faults = configuration.applyTestFaults(from: ProcessInfo.processInfo.environment, enabled: testFaults)
    guard loginsPerMinute > 0 else { throw ValidationError("--logins-per-minute wants a positive number") }
    configuration.loginsPerMinute = loginsPerMinute
    configuration.trustedProxies = Set(trustedProxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    guard let level = Logger.Level(rawValue: logLevel) else {
      throw ValidationError("unknown log level \(logLevel)")
    }
    configuration.logLevel = level
    switch logFormat {
    case "text": break
    case "json": LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
    default: throw ValidationError("unknown log format \(logFormat): text or json")
    }
    if let metricsPort {
      guard metricsPort != port else { throw ValidationError("--metrics-port must not be the public port") }
      configuration.metricsPort = metricsPort
    }
    if let faults { Logger(label: "pointapp").warning("\(faults)") }
    let registry = configuration.metricsPort.map { _ in MetricsExport.bootstrap() }
    // Runs until SIGTERM or SIGINT, then finishes the requests in flight and stops.
    try await buildApplication(configuration, metrics: registry).runService()
  }
}

/// Lists or runs the database's pending migrations (`serve` runs them at start-up too).
struct Migrate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Bring the PostgreSQL database's schema up to this program's.")

  @OptionGroup var database: DatabaseOptions

  @Flag(help: "List the pending migrations; change nothing.")
  var dryRun = false

  func run() async throws {
    let database = try database.open(logger: Logger(label: "pointapp"))
    do {
      let migrations = dryRun ? try await Schema.pending(in: database) : try await Schema.migrate(database)
      for migration in migrations {
        print("\(dryRun ? "pending" : "applied") \(migration.version): \(migration.name)")
      }
      if migrations.isEmpty { print("the schema is up to date (version \(Schema.latest))") }
      await database.close()
    } catch {
      await database.close()
      throw error
    }
  }
}

/// Copies a file store's data folder into PostgreSQL.
struct ImportFiles: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import-files",
    abstract: "Copy a data folder (users, their history, accounts, sessions) into PostgreSQL; safe to run again.",
    discussion: "Each user is copied once, in one transaction, and their balance checked against their ledger in the database. Run it before the instances start, so that the data folder's cookie key is the one they use."
  )

  @Option(help: "The data folder to copy.")
  var from: String

  @OptionGroup var database: DatabaseOptions

  @Option(help: "The data folder's code keys file (default FROM.code-keys beside it): the instances on the database name it with --code-keys.")
  var codeKeys: String?

  func run() async throws {
    CodeKeys.install(try CodeKeys.load(try CodeKeyOptions.file(codeKeys, data: from, database: false)))
    let database = try database.open(logger: Logger(label: "pointapp"))
    do {
      try await Schema.migrate(database)
      let report = try await FileImport.run(from: URL(fileURLWithPath: from), into: database) { print($0) }
      print("imported \(report.users) users (\(report.archiveFiles) archive files, \(report.quotaPlaces) places in quotas), \(report.accounts) accounts, \(report.sessions) sessions, \(report.catalogs == 1 ? "the survey catalog" : "no catalog (the database has one)"), \(report.giftCodeRecords) gift code records, \(report.pendingExchanges) pending exchanges, \(report.adjustments) adjustment records, \(report.responses) response records, \(report.mail) messages to send; \(report.usersPresent) users were there already")
      print("checked \(report.checked) users' balances against their ledgers: \(report.mismatches.isEmpty ? "all equal" : "\(report.mismatches.count) differ")")
      for mismatch in report.mismatches { print("  \(mismatch)") }
      await database.close()
      if !report.mismatches.isEmpty { throw ExitCode(1) }
    } catch {
      await database.close()
      throw error
    }
  }
}

/// Makes an operator, who signs in at /admin/login. The password is read from the terminal (not
/// shown) or from standard input, never from a flag or the environment, where other users of the
/// machine or the shell's history could read it.
struct CreateOperator: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create-operator",
    abstract: "Make an operator account for the console at /admin (the password is read from the terminal or standard input)."
  )

  @Option(help: "The operator's email address.")
  var email: String

  @Option(help: "administrator (管理者), editor (編集), support (サポート) or analyst (分析); the first operator of a store is an administrator, the default then.")
  var role: String?

  @Option(help: "The data folder (POINTAPP_DATA), when the database is not used.")
  var data = ProcessInfo.processInfo.environment["POINTAPP_DATA"] ?? "data"

  @OptionGroup var database: DatabaseOptions

  func run() async throws {
    let role = try role.map { name in
      try OperatorRole(rawValue: name) ?? { throw ValidationError("unknown role \(name): administrator, editor, support or analyst") }()
    }
    guard let password = Self.readPassword() else { throw ValidationError("no password was given on standard input") }
    do {
      try await database.withBackend(data: data) { backend in
        try await createOperator(email: email, password: password, role: role, operators: backend.table(.operators), audit: backend.table(.audit))
      }
    } catch {
      throw Self.explained(error)
    }
    print("operator \(email) created: sign in at /admin/login (an authenticator app is enrolled at the first sign-in)")
  }

  private static func explained(_ error: any Error) -> any Error {
    (error as? OperatorCreationRefused).map { ValidationError($0.description) } ?? error
  }

  /// A line from standard input; from a terminal, asked for without echo.
  private static func readPassword() -> String? {
    guard isatty(STDIN_FILENO) != 0 else { return readLine(strippingNewline: true) }
    var original = termios()
    tcgetattr(STDIN_FILENO, &original)
    var silent = original
    silent.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(STDIN_FILENO, TCSANOW, &silent)
    defer {
      tcsetattr(STDIN_FILENO, TCSANOW, &original)
      print()
    }
    print("password: ", terminator: "")
    fflush(nil)  // every output stream: the prompt shows before the read
    return readLine(strippingNewline: true)
  }
}

/// The audit log's commands.
struct Audit: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Check the audit log.", subcommands: [Verify.self])

  /// Walks the audit log's hash chain: exits 0 when intact, 1 naming the first entry tampered with.
  struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check that no entry of the audit log was changed, removed or inserted (exit 1 naming the first that was)."
    )

    @Option(help: "The data folder (POINTAPP_DATA), when the database is not used.")
    var data = ProcessInfo.processInfo.environment["POINTAPP_DATA"] ?? "data"

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
      let result = try await database.withBackend(data: data) { try await AuditLog($0.table(.audit)).verify() }
      switch result {
      case let .intact(entries, unanchored):
        print("the audit log is intact: \(entries) entries, each following the one before it")
        if unanchored > 0 { print("the newest \(unanchored) are not anchored in the head yet (a stop between an entry and its head): the next entry anchors them") }
      case let .broken(tampering):
        print("the audit log was tampered with: \(tampering)")
        throw ExitCode(1)
      }
    }
  }
}

/// The exchanges' commands.
struct Exchanges: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Exchanges and the gift provider.", subcommands: [Reconcile.self])

  /// Compares a day's requests with the provider's orders: exits 0 when they agree, 1 listing every
  /// difference.
  struct Reconcile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Compare a day's exchange requests with the gift provider's orders of that day (exit 1 listing every difference)."
    )

    @Option(help: "The day, Japan time: YYYY-MM-DD.")
    var day: String

    @Option(help: "The data folder (POINTAPP_DATA), when the database is not used.")
    var data = ProcessInfo.processInfo.environment["POINTAPP_DATA"] ?? "data"

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var codeKeys: CodeKeyOptions

    @Option(help: "The gift provider, http(s)://host[:port] (POINTAPP_GIFT_PROVIDER).")
    var giftProvider = ProcessInfo.processInfo.environment["POINTAPP_GIFT_PROVIDER"]

    @Option(help: "The file holding the provider's credentials (POINTAPP_GIFT_PROVIDER_CREDENTIALS).")
    var giftProviderCredentials = ProcessInfo.processInfo.environment["POINTAPP_GIFT_PROVIDER_CREDENTIALS"]

    func run() async throws {
      guard let day = Day(iso: day) else { throw ValidationError("--day wants YYYY-MM-DD, got \(self.day)") }
      guard let giftProvider, let giftProviderCredentials else {
        throw ValidationError("--gift-provider and --gift-provider-credentials are needed: the built-in issuer has no orders to compare")
      }
      let settings = GiftProviderSettings(url: giftProvider, credentialsFile: giftProviderCredentials)
      CodeKeys.install(try CodeKeys.load(try codeKeys.file(data: data, database: database.databaseURL != nil)))
      let report = try await database.withBackend(data: data) { backend in
        try await ExchangeReconciliation(backend: backend, provider: settings).report(on: day)
      }
      for line in report.differences { print(line) }
      print("\(day.iso): \(report.requests) requests made, \(report.orders) orders at the provider, \(report.differences.count) differences")
      if !report.differences.isEmpty { throw ExitCode(1) }
    }
  }
}
