import Composable
import Dependencies
import Foundation
import Hummingbird
import Logging
import Metrics
import PointApp
import Prometheus
import ServiceLifecycle
import Synchronization

/// How a server runs: where it listens, where it keeps data, what it serves.
public struct AppConfiguration: Sendable {
  public var hostname = "127.0.0.1"
  public var port = 8080
  /// A folder per kind of record inside it (`RecordKind`).
  public var dataDirectory = URL(fileURLWithPath: "data")
  public var templatesDirectory = URL(fileURLWithPath: "Templates")
  public var publicDirectory = URL(fileURLWithPath: "Public")
  /// Mark the session cookie Secure (behind HTTPS).
  public var secureCookies = false
  public var logLevel = Logger.Level.info
  /// The largest form body accepted; larger is a 413.
  public var maxBodySize = 64 * 1024
  /// How long a request's effects may run before it answers 503.
  public var effectDeadline = Duration.seconds(5)
  /// Proxies whose `X-Forwarded-For` names the client (nginx in front): from any other peer the
  /// header is ignored, since anyone can send it.
  public var trustedProxies: Set<String> = []
  /// Logins, registrations, resets and mailed links opened that one client may try in a minute,
  /// whatever the addresses (members and operators each): more where many members share an
  /// address, as behind a carrier's NAT.
  public var loginsPerMinute = LoginLimits.attemptsPerMinute
  /// The port that serves `GET /metrics` (Prometheus's text format) on `hostname`; `nil`: none.
  /// Never the public port.
  public var metricsPort: Int?
  /// `postgres://…`: everything persistent lives in that database, shared by every instance that
  /// names it, instead of in `dataDirectory`.
  public var databaseURL: String?
  /// The most connections an instance opens to the database.
  public var databasePoolSize = 20
  /// The longest a request waits for a connection before it is answered 503.
  public var databaseWaitLimit = Database.defaultWaitLimit
  /// How often the fulfiller looks at the exchange requests waiting for their code.
  public var exchangeSweepInterval = Duration.seconds(1)
  /// How long a fulfiller's claim on a request lasts (a killed process's runs out), and (`nil`:
  /// 30 s doubling to an hour) the wait before a request whose source said nothing is asked again.
  public var exchangeLease: TimeInterval = 120
  public var exchangeRetry: TimeInterval?
  /// How often `/metrics`' count of waiting requests and the oldest's age are taken again.
  public var exchangeCensusInterval = Duration.seconds(15)
  /// For the crash test and the scale-out proof only: the share of exchange requests the built-in
  /// issuer rejects (by request, the same each time) and how long each of its calls takes.
  public var giftCodeRejectionRate = 0.0
  public var giftCodeUnavailableRate = 0.0
  public var giftCodeDelay = Duration.zero
  /// The gift provider exchanges are ordered from; `nil`: the built-in issuer, whose codes work
  /// nowhere (the exchange pages say so).
  public var giftProvider: GiftProviderSettings?
  /// The file of the keys gift codes are sealed with at rest (`CodeKeys`), outside the data
  /// folder; made on first start when missing. `nil`: the process's keys as they are (tests).
  public var codeKeysFile: URL?
  /// When a support desk adjustment waits for a second operator.
  public var adjustmentPolicy = AdjustmentPolicy()
  /// What messages say of their sender, and where their links lead.
  public var mail = MailSettings()
  /// Where messages go: an SMTP server, or (`nil`) the outbox folder `mail-outbox/` of the data folder.
  public var smtp: SMTPServer?
  /// How often each process looks for messages to deliver.
  public var mailSweepInterval = Duration.seconds(1)
  /// Invitations and expiry warnings queued at most a second by each pass (a survey's
  /// invitations, a day's warnings: `NoticeSender.rate`).
  public var noticeRate = 20

  public init() {}

  /// The environment's fault settings of the built-in issuer (`POINTAPP_GIFT_REJECTION_RATE`,
  /// `POINTAPP_GIFT_UNAVAILABLE_RATE`, `POINTAPP_GIFT_DELAY_MS`) and the sweep's interval
  /// (`POINTAPP_EXCHANGE_SWEEP_SECONDS`), taken only when `enabled` (`--test-faults`): a server
  /// started with one of them by mistake never refuses real members' exchanges. What the log
  /// says of them at start (`nil`: none was set).
  public mutating func applyTestFaults(from environment: [String: String], enabled: Bool) -> String? {
    let names = [
      "POINTAPP_GIFT_REJECTION_RATE", "POINTAPP_GIFT_UNAVAILABLE_RATE", "POINTAPP_GIFT_DELAY_MS", "POINTAPP_EXCHANGE_SWEEP_SECONDS",
      "POINTAPP_EXCHANGE_LEASE_SECONDS", "POINTAPP_EXCHANGE_RETRY_SECONDS",
    ]
    let set = names.filter { environment[$0] != nil }
    guard enabled else {
      return set.isEmpty ? nil : "ignored without --test-faults: \(set.joined(separator: ", "))"
    }
    giftCodeRejectionRate = Double(environment[names[0]] ?? "") ?? 0
    giftCodeUnavailableRate = Double(environment[names[1]] ?? "") ?? 0
    giftCodeDelay = .milliseconds(Int(environment[names[2]] ?? "") ?? 0)
    if let seconds = Int(environment[names[3]] ?? "") { exchangeSweepInterval = .seconds(seconds) }
    if let seconds = Double(environment[names[4]] ?? "") { exchangeLease = seconds }
    if let seconds = Double(environment[names[5]] ?? "") { exchangeRetry = seconds }
    return "TEST FAULTS ON: the built-in issuer rejects \(giftCodeRejectionRate), is unavailable for \(giftCodeUnavailableRate) of its calls, "
      + "takes \(giftCodeDelay) a call; pending exchanges are swept every \(exchangeSweepInterval), claimed for \(exchangeLease) s, "
      + "asked again after \(exchangeRetry.map { "\($0) s" } ?? "the backoff"). Never for real members."
  }
}

/// Builds the server. Tests pass their own backend, secret and dependency overrides; the
/// defaults are the live ones: JSON files in the data folder, the shipped catalog, the real clock.
public func buildApplication(
  _ configuration: AppConfiguration,
  backend: (any RecordBackend)? = nil,
  sessions sessionStore: (any RecordStorage)? = nil,
  accounts accountStore: (any RecordStorage)? = nil,
  secret: Data? = nil,
  logger: Logger? = nil,
  metrics registry: PrometheusCollectorRegistry? = nil,
  passwordHasher: PasswordHasher = PasswordHasher(),
  routes: RouteList? = nil,
  giftSource: (any GiftSource)? = nil,
  dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in }
) async throws -> some ApplicationProtocol {
  var logger = logger ?? Logger(label: "pointapp")
  logger.logLevel = configuration.logLevel
  guard let stylesheet = FileManager.default.contents(atPath: configuration.publicDirectory.appendingPathComponent("styles.css").path) else {
    throw PageRenderer.TemplateError(message: "missing stylesheet \(configuration.publicDirectory.path)/styles.css")
  }
  let renderer = try await PageRenderer(
    directory: configuration.templatesDirectory, stylesheet: PageRenderer.versionedURL("/styles.css", of: stylesheet)
  )
  // The product's figures go to the registry served on the metrics port; Hummingbird's, to the
  // process's backend (`MetricsExport.bootstrap`, the same registry when the command runs).
  let metrics = ProductMetrics(factory: registry.map(MetricsExport.factory) ?? NOOPMetricsHandler.instance)
  var services: [any Service] = []
  let stores: Stores
  var feed: ChangeFeed?
  if let url = configuration.databaseURL {
    let database = try Database(url: url, poolSize: configuration.databasePoolSize, waitLimit: configuration.databaseWaitLimit, logger: logger)
    // First among the services, so that it stops after the HTTP server.
    services.append(database)
    do {
      try await Schema.migrate(database)
      let changes = ChangeFeed(database, logger: logger)
      services.append(changes)
      feed = changes
      stores = Stores(database, feed: changes)
    } catch {
      await database.close()
      throw error
    }
  } else if let backend {
    stores = Stores(backend)
  } else {
    stores = try Stores(configuration.dataDirectory)
  }
  if let files = stores.backend as? FileBackend {
    // First among the services, as the database is, so that it stops after the HTTP server.
    services.append(DeferredWritesAtShutdown(backend: files))
  }
  // The catalog in the store, seeded on the first start (dated from then) and read again when
  // another instance changed it. Tests may serve a fixed catalog of their own instead.
  let catalogStore = CatalogStore(stores.records(.catalog))
  var resolved = withDependencies {
    $0.calendar = .tokyo
    // Every dependency the features read, kept in the values themselves: one the values do not
    // hold is looked up in the library's shared cache, under its lock, on every read.
    $0.date = $0.date
    $0.uuid = $0.uuid
    $0.surveyClient = catalogStore.client
    $0.ledgerArchive = $0.ledgerArchive
    $0.adjustmentPolicy = configuration.adjustmentPolicy
    dependencies(&$0)
  } operation: {
    DependencyValues._current
  }
  // Gift codes are sealed at rest with the keys of the file (every instance of one database
  // reads the same file).
  if let file = configuration.codeKeysFile {
    let keys = try CodeKeys.load(file)
    try await keys.register(in: stores.backend, file: file.path)
    CodeKeys.install(keys)
  }
  // Where exchanges get their codes: the provider when one is configured, else the built-in
  // issuer. What it can deliver is read at start and every minute; the exchange pages and the
  // exchange itself read the last answer.
  let issuer = GiftCodeIssuer(
    storage: stores.records(.giftCodes), rejectionRate: configuration.giftCodeRejectionRate,
    unavailableRate: configuration.giftCodeUnavailableRate, delay: configuration.giftCodeDelay
  )
  if try await issuer.renameReservations() > 0 { logger.notice("the built-in issuer's reservations are now named by digest, not by code") }
  let giftSource = try giftSource ?? configuration.giftProvider.map { try GiftProvider($0) } ?? issuer.source
  let offers = GiftOffers(giftSource)
  resolved.giftOffer = offers.client
  services.append(PeriodicTask(name: "reading what the gift source delivers", interval: .seconds(60), logger: logger, firstAtStart: true) {
    try await offers.refresh()
  })
  try await catalogStore.start(seed: Catalog.shipped(seededAt:), now: resolved.date.now)
  // Another instance's change is served here within a second or so.
  services.append(PeriodicTask(name: "reading the survey catalog", interval: .seconds(1), logger: logger) { [logger] in
    if try await catalogStore.refresh() { logger.info("survey catalog changed: loaded again") }
  })
  let users = UserStates(stores.backend, metrics: registry == nil ? nil : metrics)
  let accounts = AccountRecords(accountStore ?? stores.records(.accounts))
  let quotas = Quotas(stores.backend)
  let responses = ResponseStore(stores.records(.responses))
  if let files = stores.backend as? FileBackend {
    let settled = try await responses.settleEarlierJournals(in: files.folder, users: users)
    if settled > 0 { logger.notice("responses an earlier program left pending settled", metadata: ["responses": "\(settled)"]) }
    // The counts of the processes gone since the last start, added to their surveys'.
    let folded = try await responses.foldFinishedShards(in: files)
    if folded > 0 { logger.info("counts of processes gone added to their surveys'", metadata: ["records": "\(folded)"]) }
  }
  let catalog = resolved.surveyClient
  resolved.surveyClient = catalog.counting(quotas)
  // Users kept decoded, on every store: a generation as large as a busy instance's writers (P2's
  // 3,500), whose every write decodes its user's state unless it is kept. Two generations of 2,000
  // fell to 2,000 at each turn, and P2 decoded the state of three answers in ten (60 µs of user-space
  // CPU an answer; P4 1–3 MB more on either store, BENCHMARKS.md).
  let cache = SavedStateCache(kept: 3_500)
  let sessionSecret = if let secret { secret } else { try await Sessions.secret(in: stores.backend) }
  let throttle = LoginThrottle(stores.records(.loginLimits), attemptsPerMinute: configuration.loginsPerMinute)
  let sessions = Sessions(
    secret: sessionSecret,
    secureCookies: configuration.secureCookies,
    store: SessionRecords(sessionStore ?? stores.records(.sessions), kept: RecordKind.sessions.kept),
    accounts: accounts
  )
  // Expired sessions go in bounded steps, round the store: 500 records every 30 seconds.
  let pruning = SessionPruning(sessions: sessions, now: { [date = resolved.date] in date.now })
  services.append(PeriodicTask(name: "pruning sessions", interval: .seconds(30), logger: logger) { [logger] in
    let pruned = try await pruning.step()
    if pruned > 0 { logger.info("expired sessions pruned", metadata: ["sessions": "\(pruned)"]) }
  })
  let mailQueue = MailQueue(stores.backend)
  let mailTransport: any MailTransport =
    if let smtp = configuration.smtp { try SMTPTransport(smtp, settings: configuration.mail) }
    else { try OutboxFolder(configuration.dataDirectory.appendingPathComponent("mail-outbox"), settings: configuration.mail) }
  let mailSender = MailSender(
    queue: mailQueue, transport: mailTransport, process: "\(ProcessInfo.processInfo.processIdentifier)-" + hex(randomBytes(4)),
    now: { [date = resolved.date] in date.now }, logger: logger,
    audience: NoticeAudience(accounts: accounts, users: users)
  )
  services.append(PeriodicTask(name: "delivering mail", interval: configuration.mailSweepInterval, logger: logger) {
    try await mailSender.sweep()
  })
  let loop = RequestLoop(
    users: users,
    sessions: sessions,
    renderer: renderer,
    dependencies: resolved,
    catalog: catalog,
    maxBodySize: configuration.maxBodySize,
    effectDeadline: configuration.effectDeadline,
    trustedProxies: configuration.trustedProxies,
    metrics: metrics,
    accounts: AccountService(
      accounts: accounts, sessions: sessions, users: users, hasher: passwordHasher, throttle: throttle, cache: cache,
      responses: responses
    ),
    quotas: quotas,
    responses: responses,
    exchanges: ExchangeQueue(storage: stores.records(.exchangeQueue)),
    mail: MailOutbox(queue: mailQueue, accounts: accounts, renderer: renderer, settings: configuration.mail, unsubscribeToken: sessions.unsubscribeToken),
    cache: cache,
    feed: feed,
    app: withDependencies { $0 = resolved } operation: { traced(AppFeature(), to: logger) }
  )
  // Exchange requests waiting for their code, in every process: each a second (the source is
  // called outside any user's lock; a crash's leftovers are taken up the same way).
  var configured = ExchangeFulfiller(
    queue: loop.exchanges, loop: loop, source: giftSource, process: mailSender.process, now: { [date = resolved.date] in date.now }, logger: logger
  )
  configured.lease = configuration.exchangeLease
  if let retry = configuration.exchangeRetry { configured.backoff = { _ in retry } }
  let fulfiller = configured
  loop.fulfilNow.set { [logger] entries in
    // At most `firstWait` of the form's answer: a slower source leaves the request 申請中 on its
    // page, and the fulfiller's next pass ends it.
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for entry in entries {
          do { _ = try await fulfiller.fulfil(entry) } catch {
            logger.warning("an exchange could not be taken up at once", metadata: ["entry": "\(entry.name)", "error": "\(error)"])
          }
        }
      }
      group.addTask { try? await PeriodicTask.sleep(for: ExchangeFulfiller.firstWait) }
      await group.next()
      group.cancelAll()
    }
  }
  services.append(PeriodicTask(name: "fulfilling pending exchanges", interval: configuration.exchangeSweepInterval, logger: logger) {
    try await fulfiller.sweep()
  })
  if registry != nil {
    services.append(PeriodicTask(name: "counting waiting exchanges", interval: configuration.exchangeCensusInterval, logger: logger, firstAtStart: true) { [queue = loop.exchanges, date = resolved.date] in
      let census = try await queue.census(at: date.now)
      metrics.exchangesWaiting.record(census.waiting)
      metrics.oldestExchangeWaiting.record(census.oldest ?? 0)
    })
  }
  // Invitations and expiry warnings, a page of members a second.
  let noticeRuns = NoticeRuns(stores.backend)
  let noticeSender = NoticeSender(
    runs: noticeRuns, accounts: accounts, loop: loop, process: mailSender.process, now: { [date = resolved.date] in date.now }, logger: logger,
    rate: configuration.noticeRate
  )
  services.append(PeriodicTask(name: "sending notices", interval: configuration.mailSweepInterval, logger: logger) {
    try await noticeSender.step()
  })
  let operatorSessions = OperatorSessions(
    sessions: sessions, operators: OperatorRecords(stores.records(.operators)), secureCookies: configuration.secureCookies
  )
  let console = OperatorLoop(
    sessions: operatorSessions,
    service: OperatorService(
      sessions: operatorSessions, hasher: passwordHasher, throttle: throttle, catalog: catalogStore,
      audit: AuditLog(stores.records(.audit)), responses: responses, notices: noticeRuns
    ),
    desk: SupportDeskService(
      users: users, accounts: accounts, audit: AuditLog(stores.records(.audit)), loop: loop, adjustments: AdjustmentStore(stores.records(.adjustments)),
      mail: mailQueue
    ),
    renderer: renderer,
    exporter: ResponseExporter(responses: responses, versions: { try await catalogStore.version($0, of: $1) }),
    dependencies: resolved,
    maxBodySize: configuration.maxBodySize,
    effectDeadline: configuration.effectDeadline,
    trustedProxies: configuration.trustedProxies,
    app: withDependencies { $0 = resolved } operation: { traced(OperatorFeature(), to: logger) }
  )
  let router = buildRouter(
    loop: loop, console: console, publicDirectory: configuration.publicDirectory,
    strictTransportSecurity: configuration.secureCookies, measured: registry != nil, logger: logger
  )
  routes?.routes.withLock { $0 = router.routes.map { ($0.method.rawValue, $0.path.description) } }
  if let port = configuration.metricsPort, let registry {
    services.append(Application(
      router: MetricsExport.router(registry),
      configuration: .init(address: .hostname(configuration.hostname, port: port)),
      logger: logger
    ))
  }
  return Application(
    responder: router.buildResponder(),
    configuration: .init(address: .hostname(configuration.hostname, port: configuration.port)),
    services: services,
    logger: logger
  )
}

/// Writes, when the server stops, the counts that its last answers' commits held in memory
/// (`DeferredWrites`): whoever reads the data folder next finds them in their files, not only in
/// the log that the next start would finish.
private struct DeferredWritesAtShutdown: Service {
  let backend: FileBackend

  func run() async throws {
    try? await gracefulShutdown()
    try await backend.flushDeferred()
  }
}

/// Where everything persistent lives: files in the data folder (the default), or one PostgreSQL
/// database that several instances share. Records of every kind come from the backend
/// (`RecordKind` names each one's folder and table).
struct Stores {
  let backend: any RecordBackend

  func records(_ kind: RecordKind) -> any RecordStorage { backend.table(kind) }

  init(_ data: URL) throws {
    backend = try FileBackend(data)
  }

  /// Any backend (tests' memory).
  init(_ backend: any RecordBackend) {
    self.backend = backend
  }

  /// Users' states, sessions and accounts are read through `feed`'s caches.
  init(_ database: Database, feed: ChangeFeed) {
    backend = PostgresBackend(database, feed: feed)
  }
}

func buildRouter(
  loop: RequestLoop, console: OperatorLoop, publicDirectory: URL, strictTransportSecurity: Bool, measured: Bool, logger: Logger
) -> Router<AppRequestContext> {
  let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
  router.addMiddleware {
    // Outermost, so that every response has them, error pages and static files included.
    SecurityHeadersMiddleware(strictTransportSecurity: strictTransportSecurity)
    RequestLogMiddleware(serverErrors: loop.metrics.serverErrors)
  }
  // Requests by route pattern, method and status, outside the error pages so it sees their
  // status; only when the metrics are read, since it costs every request a lookup under a lock.
  if measured { router.add(middleware: MetricsMiddleware()) }
  router.addMiddleware {
    ErrorPageMiddleware(renderer: loop.renderer)
    ControlCharacterGuard()
    // Pages link the stylesheet under a URL that changes with its content (`?v=`), so it may be
    // kept for a year; ETag and Last-Modified still let a browser revalidate.
    FileMiddleware(
      publicDirectory.path, cacheControl: CacheControl([(MediaType(type: .text, subType: "css"), [.public, .maxAge(31_536_000), .immutable])]),
      searchForIndexHtml: false, logger: logger
    )
  }
  router.get("/healthz") { _, _ in "ok" }
  router.get("/") { _, _ in Response.redirect(to: "/surveys", type: .normal) }
  // Browsers ask for /favicon.ico on pages that name no icon (the health check's text).
  router.get("/favicon.ico") { _, _ in Response.redirect(to: "/favicon.svg", type: .permanent) }
  SurveysController(loop: loop).addRoutes(to: router)
  PointsController(loop: loop).addRoutes(to: router)
  MissionsController(loop: loop).addRoutes(to: router)
  AccountController(loop: loop).addRoutes(to: router)
  ProfileController(loop: loop).addRoutes(to: router)
  AdminController(loop: console).addRoutes(to: router)
  return router
}

/// The routes the router was built with, as "METHOD" and path pattern: for tests that must reach
/// every one (every `/admin` route answers 404 to guests and users).
public final class RouteList: Sendable {
  public let routes = Mutex<[(method: String, path: String)]>([])
  public init() {}
}

/// A feature prepared for every request's store; at the trace level (`LOG_LEVEL=trace`) each
/// action it receives and the change of state it made are written to the log (`_printChanges`).
/// Passwords, operators' codes and mailed links' tokens never are (`Secret` dumps as `<secret>`,
/// a gift code masked); the rest of a user's state is (see the README).
func traced<Feature: Reducer & Sendable>(_ feature: Feature, to logger: Logger) -> PreparedReducer<Feature.State, Feature.Action>
where Feature.Body: Reducer, Feature.Body.State == Feature.State, Feature.Body.Action == Feature.Action {
  guard logger.logLevel <= .trace else { return PreparedReducer(feature) }
  return PreparedReducer(feature._printChanges(.dump { logger.trace("\($0)") }))
}
