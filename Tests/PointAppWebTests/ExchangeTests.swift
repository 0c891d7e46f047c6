import Dependencies
import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Synchronization
import Testing

/// The built-in issuer on every store: one code per request however often and however many times
/// at once it is asked, codes unique, a cancellation and an issue never both.
struct GiftCodeIssuerContractTests {
  typealias Kind = StoreKind

  func request(_ key: UUID = UUID()) -> ExchangeRequest {
    ExchangeRequest(number: 1, option: ExchangeOption.all[0].id, points: 3_000, requestedAt: noon, key: TransactionID(key))
  }

  @Test(arguments: Kind.tested)
  func aRequestGetsOneCodeHoweverOftenItIsAsked(kind: Kind) async throws {
    let issuer = GiftCodeIssuer(storage: try await kind.records(table: "gift_codes"))
    let one = request()
    let codes = try await withThrowingTaskGroup(of: GiftCode.self) { group in
      for _ in 0..<20 { group.addTask { try await issuer.issue(one) } }
      return try await group.reduce(into: Set<GiftCode>()) { $0.insert($1) }
    }
    #expect(codes.count == 1)
    #expect(try await issuer.issue(one) == codes.first)
    #expect(codes.first?.value.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}/) != nil)
    #expect(try await issuer.cancel(one) == codes.first, "too late to cancel: the code stands")
  }

  @Test(arguments: Kind.tested)
  func requestsGetCodesOfTheirOwn(kind: Kind) async throws {
    let issuer = GiftCodeIssuer(storage: try await kind.records(table: "gift_codes"))
    let codes = try await withThrowingTaskGroup(of: GiftCode.self) { group in
      for _ in 0..<50 { group.addTask { try await issuer.issue(request()) } }
      return try await group.reduce(into: [GiftCode]()) { $0.append($1) }
    }
    #expect(Set(codes).count == 50)
  }

  @Test(arguments: Kind.tested)
  func aCancelledRequestIsNeverIssued(kind: Kind) async throws {
    let issuer = GiftCodeIssuer(storage: try await kind.records(table: "gift_codes"))
    let one = request()
    #expect(try await issuer.cancel(one) == nil)
    await #expect(throws: GiftCodeError.rejected) { try await issuer.issue(one) }
    #expect(try await issuer.cancel(one) == nil)
    // Issued and cancelled at once: whichever came first, both agree.
    let raced = request()
    async let issued = Result { try await issuer.issue(raced) }
    async let cancelled = issuer.cancel(raced)
    switch (await issued, try await cancelled) {
    case let (.success(code), cancelledWith): #expect(cancelledWith == code)
    case let (.failure(error), cancelledWith): #expect(error as? GiftCodeError == .rejected && cancelledWith == nil)
    }
  }

  /// As the fulfiller's source, the issuer answers as a provider does: a status by key, a
  /// cancellation that delivers a code issued before.
  @Test(arguments: Kind.tested)
  func asASourceItAnswersAsAProviderDoes(kind: Kind) async throws {
    let source = GiftCodeIssuer(storage: try await kind.records(table: "gift_codes")).source
    let one = request(), two = request()
    #expect(try await source.status(one) == GiftProviderAnswer.none)
    guard case let .issued(code) = try await source.issue(one) else {
      Issue.record("not issued")
      return
    }
    #expect(try await source.status(one) == .issued(code))
    #expect(try await source.issue(one) == .issued(code))
    #expect(try await source.cancel(one) == .issued(code))
    #expect(try await source.cancel(two) == .refused("cancelled"))
    #expect(try await source.issue(two) == .refused("rejected"))
    #expect(try await source.status(two) == .refused("cancelled"))
  }

  @Test func aRejectionRateRejectsTheSameRequestsEveryTime() async throws {
    let issuer = GiftCodeIssuer(storage: InMemoryRecordStorage(), rejectionRate: 0.5)
    var rejected = 0
    for _ in 0..<200 {
      let one = request()
      let first = try? await issuer.issue(one)
      let again = try? await issuer.issue(one)
      #expect(first == again)
      if first == nil { rejected += 1 }
    }
    #expect((60...140).contains(rejected), "about half: \(rejected)")
  }

  /// The fault settings are the crash test's: a server started with one of them and without
  /// `--test-faults` keeps an issuer that always answers, and says so in its log.
  @Test func theIssuersFaultsAreTakenOnlyWithTheTestFlag() {
    let environment = ["POINTAPP_GIFT_REJECTION_RATE": "0.2", "POINTAPP_GIFT_DELAY_MS": "300", "POINTAPP_EXCHANGE_SWEEP_SECONDS": "2"]
    var production = AppConfiguration()
    let ignored = production.applyTestFaults(from: environment, enabled: false)
    #expect(production.giftCodeRejectionRate == 0 && production.giftCodeDelay == .zero && production.exchangeSweepInterval == .seconds(1))
    #expect(ignored?.hasPrefix("ignored without --test-faults: POINTAPP_GIFT_REJECTION_RATE, POINTAPP_GIFT_DELAY_MS") == true)
    var quiet = AppConfiguration()
    #expect(quiet.applyTestFaults(from: [:], enabled: false) == nil, "nothing set, nothing said")

    var test = AppConfiguration()
    let on = test.applyTestFaults(from: environment, enabled: true)
    #expect(test.giftCodeRejectionRate == 0.2 && test.giftCodeDelay == .milliseconds(300) && test.exchangeSweepInterval == .seconds(2))
    #expect(on?.hasPrefix("TEST FAULTS ON") == true)
  }
}

extension Result where Failure == any Error {
  init(catching body: () async throws -> Success) async {
    do { self = .success(try await body()) } catch { self = .failure(error) }
  }
}

/// The queue of requests waiting for their code, on every store: one process at a time holds a
/// request (a claim that runs out), only the holder puts it back, and the desk's move made during
/// a claim is not lost.
struct ExchangeQueueContractTests {
  typealias Kind = StoreKind

  @Test(arguments: Kind.tested)
  func oneProcessAtATimeHoldsARequestAndOnlyItPutsItBack(kind: Kind) async throws {
    let queue = ExchangeQueue(storage: try await kind.records(table: "exchange_pending"))
    let entry = ExchangeQueue.Entry(user: UserID.random(), number: 1)
    try await queue.add([entry], at: noon)
    let claims = try await withThrowingTaskGroup(of: Bool.self) { group in
      for process in 0..<10 { group.addTask { try await queue.claim(entry, for: "p\(process)", at: noon, until: noon + 60) != nil } }
      return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
    }
    #expect(claims == 1, "one of ten processes holds it")
    let holder = try #require(try await queue.waiting(entry)?.claim?.by)
    // Another process cannot put it back; the holder can, due later, its answer unknown.
    try await queue.putBack(entry, by: "someone-else", due: noon + 30, unknown: true)
    #expect(try await queue.waiting(entry)?.claim?.by == holder)
    try await queue.putBack(entry, by: holder, due: noon + 30, unknown: true)
    let back = try #require(try await queue.waiting(entry))
    #expect(back.claim == nil && back.due == noon + 30 && back.unknown == true && back.attempts == 1)
    #expect(try await queue.claim(entry, for: "p0", at: noon + 29, until: noon + 89) == nil, "not due yet")
    #expect(try await queue.claim(entry, for: "p0", at: noon + 30, until: noon + 90) != nil)
    // A claim that ran out (its process died) is taken by another.
    #expect(try await queue.claim(entry, for: "p1", at: noon + 89, until: noon + 150) == nil)
    #expect(try await queue.claim(entry, for: "p1", at: noon + 90, until: noon + 150) != nil)
  }

  /// A page of names that are not entries (an older release's) does not end the walk: the
  /// listing (the census, the desk's list) and the sweep's pages go on past it.
  @Test(arguments: Kind.tested)
  func namesThatAreNotEntriesDoNotEndTheWalk(kind: Kind) async throws {
    let storage = try await kind.records(table: "exchange_pending")
    let queue = ExchangeQueue(storage: storage)
    let prefix = "0-\(UUID().uuidString.prefix(8))-"  // before every entry's name
    for number in 0..<150 { #expect(try await storage.create(prefix + String(format: "%03d", number), Data("{}".utf8))) }
    let entry = ExchangeQueue.Entry(user: UserID.random(), number: 1)
    try await queue.add([entry], at: noon)
    #expect(try await queue.all().contains { $0.entry == entry })
    var (found, after): ([ExchangeQueue.Entry], String?) = ([], nil)
    repeat {
      let (entries, next) = try await queue.page(after: after)
      found += entries
      after = next
    } while after != nil
    #expect(found.contains(entry))
  }

  @Test(arguments: Kind.tested)
  func theDesksMoveIsKeptThroughAClaimAndMakesAMissingEntry(kind: Kind) async throws {
    let queue = ExchangeQueue(storage: try await kind.records(table: "exchange_pending"))
    let entry = ExchangeQueue.Entry(user: UserID.random(), number: 1)
    try await queue.add([entry], at: noon)
    _ = try #require(try await queue.claim(entry, for: "p0", at: noon, until: noon + 60))
    try await queue.nudge(entry, end: true)
    try await queue.putBack(entry, by: "p0", due: noon + 30, unknown: true)
    let moved = try #require(try await queue.waiting(entry))
    #expect(moved.due == nil && moved.endAsked == true, "due at once, to be ended")
    let missing = ExchangeQueue.Entry(user: UserID.random(), number: 2)
    try await queue.nudge(missing, end: false)
    #expect(try await queue.waiting(missing) == ExchangeQueue.Waiting())
    try await queue.remove(missing)
    // (The table may hold other tests' entries: on PostgreSQL they share a database.)
    let names = try await queue.entries(limit: 10_000).map(\.name)
    #expect(names.contains(entry.name) && !names.contains(missing.name))
  }
}

/// A request is 申請中 when its POST answers, queued with the state that holds it; the fulfiller
/// (every second, in every instance) asks its source outside the user's lock and records the code,
/// once, however often it is asked and however many times the server starts.
struct PendingExchangeTests {
  /// A guest with 3,500 pt and a session of theirs in `sessions`; its cookie.
  static func seed(_ server: TestServer, users: UserStates, sessions: SessionRecords) async throws -> (user: UserID, cookie: String) {
    let user = try #require(UserID("0123456789abcdef0123456789abcdef"))
    var state = AppFeature.State()
    state.progress.recordAnswer(
      to: Survey(id: SurveyID("big"), title: "", description: "", category: .food, questions: [], reward: 3_500, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil),
      with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo)
    )
    try await users.replace(user, with: state)
    let session = SessionID.random()
    #expect(try await sessions.create(SessionRecord(user: user, lastSeen: noon), as: session))
    return (user, TestServer.cookie(for: session))
  }

  /// Requests the 3,000 pt gift: pending on the page the POST leads to (the source said nothing
  /// at once), unless `pending` is false.
  static func requestExchange(
    _ client: some TestClientProtocol, cookie: String, mail: any RecordBackend, data: URL, pending: Bool = true
  ) async throws -> Browser {
    var browser = Browser(client: client, cookie: cookie)
    try await browser.registerVerified(in: mail, data: data)
    let token = try await browser.csrf(from: "/exchange/digital-gift-300")
    let ledger = try await browser.hidden("ledger", from: "/exchange/digital-gift-300")
    let sent = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(token)&ledger=\(ledger)")
    #expect(sent.headers[.location] == "/exchange/history/1")
    guard pending else { return browser }
    let page = try await browser.get("/exchange/history/1").html
    #expect(page.contains("申請中") && !page.contains("<code>"))
    #expect(AccountTests.balance(try await browser.get("/points")) == "500pt", "held")
    return browser
  }

  @Test func aRequestIsFulfilledByTheFulfillerOnceWhenItsSourceComesBack() async throws {
    let server = try TestServer()
    let (user, seeded) = try await Self.seed(server, users: server.users, sessions: try server.sessionRecords())
    let source = StubGiftSource(up: false)
    let cookie = Mutex<String?>(nil)
    let queue = server.dataDirectory.appendingPathComponent("exchanges-pending")
    func queued() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: queue.path).filter { !$0.hasPrefix(".") } }
    try await server.application(giftSource: source).test(.router) { client in
      let browser = try await Self.requestExchange(client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      cookie.withLock { $0 = browser.cookie }
      // The source is down: the fulfiller notes its attempt, and the request stays 申請中.
      try await eventually { try await server.users.read(user).map { String(decoding: $0, as: UTF8.self).contains("\"attempts\":1") } == true }
    }
    #expect(try queued() == ["\(user.rawValue)~1.json"])
    source.up.withLock { $0 = true }
    for _ in 0..<2 {  // started twice (an hour later: past the backoff): the second finds nothing to do
      try await server.application(giftSource: source, now: noon + 3_600).test(.router) { client in
        var browser = Browser(client: client, cookie: cookie.withLock { $0 })
        try await eventually { try await browser.get("/exchange/history/1").html.contains("<code>\(source.code.value)</code>") }
        #expect(try await browser.get("/exchange/history/1").html.contains("交換完了"))
      }
    }
    #expect(source.issued.withLock { $0 } == 1)
    #expect(try queued().isEmpty)
  }

  /// The source issued, but its answer was lost: the next call asks the status by key and finds
  /// the code, never a second order; a source's refusal is settled by a cancellation before the
  /// points come back.
  @Test func aLostAnswerIsAskedForByStatusAndARefusalIsSettledBeforeARefund() async throws {
    let server = try TestServer()
    let (user, seeded) = try await Self.seed(server, users: server.users, sessions: try server.sessionRecords())
    let source = StubGiftSource()
    source.dropsAnswer.withLock { $0 = true }
    let cookie = Mutex<String?>(nil)
    try await server.application(giftSource: source).test(.router) { client in
      let browser = try await Self.requestExchange(client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      cookie.withLock { $0 = browser.cookie }
    }
    #expect(source.issued.withLock { $0 } == 1)
    source.dropsAnswer.withLock { $0 = false }
    try await server.application(giftSource: source, now: noon + 3_600).test(.router) { client in
      var browser = Browser(client: client, cookie: cookie.withLock { $0 })
      try await eventually { try await browser.get("/exchange/history/1").html.contains("<code>\(source.code.value)</code>") }
    }
    #expect(source.issued.withLock { $0 } == 1 && source.statusAsked.withLock { $0 } == 1, "asked by status, not ordered again")
    #expect(try await ProviderExchangeTests.delivered(server, user) == source.code)

    let refusing = try TestServer()
    let (_, other) = try await Self.seed(refusing, users: refusing.users, sessions: try refusing.sessionRecords())
    let refuses = StubGiftSource()
    refuses.refuses.withLock { $0 = true }
    try await refusing.application(giftSource: refuses).test(.router) { client in
      var browser = try await Self.requestExchange(
        client, cookie: other, mail: try FileBackend(refusing.dataDirectory), data: refusing.dataDirectory, pending: false
      )
      try await eventually { try await browser.get("/exchange/history/1").html.contains("失敗") }
      #expect(AccountTests.balance(try await browser.get("/points")) == "3,500pt", "given back once")
    }
    #expect(refuses.cancelled.withLock { $0 } == 1 && refuses.issued.withLock { $0 } == 0)
  }

  /// A request still pending a day after it was made is ended at its source: refunded when nothing
  /// was issued, delivered when a code was after all.
  @Test(arguments: [false, true])
  func aRequestPendingADayIsEndedAtItsSource(issuedAfterAll: Bool) async throws {
    let server = try TestServer()
    let (user, seeded) = try await Self.seed(server, users: server.users, sessions: try server.sessionRecords())
    let source = StubGiftSource(issuing: false)
    let cookie = Mutex<String?>(nil)
    try await server.application(giftSource: source).test(.router) { client in
      let browser = try await Self.requestExchange(client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      cookie.withLock { $0 = browser.cookie }
    }
    if issuedAfterAll { source.issued.withLock { $0 = 1 } }
    try await server.application(giftSource: source, now: noon + Exchange.giveUpAfter + 60).test(.router) { client in
      var browser = Browser(client: client, cookie: cookie.withLock { $0 })
      try await eventually { !(try await browser.get("/exchange/history/1").html.contains("申請中")) }
      let page = try await browser.get("/exchange/history/1").html
      if issuedAfterAll {
        #expect(page.contains("交換完了") && page.contains("<code>\(source.code.value)</code>"))
      } else {
        let balance = AccountTests.balance(try await browser.get("/points"))
        #expect(page.contains("失敗") && balance == "3,500pt")
      }
    }
    #expect(source.cancelled.withLock { $0 } == 1)
    #expect(try await server.users.read(user) != nil)
  }

  @Test(.enabled(if: TestDatabase.enabled, TestDatabase.notInstalled))
  func onPostgreSQLTheQueueIsWrittenWithTheStateAndAnotherInstanceFulfils() async throws {
    let database = try await TestDatabase.make()
    let server = try TestServer()
    let (user, seeded) = try await Self.seed(
      server, users: UserStates(PostgresBackend(database)), sessions: SessionRecords(PostgresRecordStorage(database, table: "sessions"))
    )
    let source = StubGiftSource(up: false)
    let cookie = Mutex<String?>(nil)
    try await server.application(databaseURL: database.url, giftSource: source).test(.router) { client in
      let browser = try await Self.requestExchange(client, cookie: seeded, mail: PostgresBackend(database), data: server.dataDirectory)
      cookie.withLock { $0 = browser.cookie }
    }
    let queued = try await database.query("SELECT id FROM exchange_pending").map { try $0.decode(String.self) }
    #expect(queued == ["\(user.rawValue)~1"])
    source.up.withLock { $0 = true }
    try await server.application(databaseURL: database.url, giftSource: source, now: noon + 3_600).test(.router) { client in
      var browser = Browser(client: client, cookie: cookie.withLock { $0 })
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
    }
    let left = try await database.query("SELECT count(*) FROM exchange_pending").first?.decode(Int.self)
    #expect(left == 0)
    #expect(source.issued.withLock { $0 } == 1)
  }
}

/// Expiry over HTTP: the first page a returning user opens already leaves expired points out, and
/// writes their expiry once.
/// Exchanges through a provider over HTTP, as `serve --gift-provider URL --gift-provider-credentials
/// FILE` runs them, against the sandbox provider: the member reads the provider's code, ordered
/// once under the request's key, and is offered only what the provider delivers.
struct ProviderExchangeTests {
  @Test func theMemberGetsTheProvidersCodeAndIsOfferedOnlyWhatItDelivers() async throws {
    let sandbox = try await SandboxProvider.start(["--unavailable", "giftcard-1000"])
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    let settings = GiftProviderSettings(url: sandbox.url, credentialsFile: sandbox.credentials.path)
    try await server.application(giftProvider: settings).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(
        client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory, pending: false
      )
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
      let orders = sandbox.log()
      #expect(orders.count == 1 && orders.first?.hasPrefix(UUID(0).uuidString.lowercased() + " gift-300 ") == true, "\(orders)")
      let code = try #require(orders.first?.split(separator: " ").last)
      let page = try await browser.get("/exchange/history/1").html
      #expect(page.contains("<code>\(code)</code>"))
      #expect(!page.contains("テスト用"), "a provider's codes are real")
      // The gift card's product cannot be delivered: not offered, and a form sent for it anyway
      // holds nothing.
      let options = try await browser.get("/exchange").html
      #expect(options.contains("ただいまお取り扱いを休止しています"))
      #expect(!options.contains(#"href="/exchange/gift-card-1000""#))
      let refused = try await browser.get("/exchange/gift-card-1000")
      #expect(refused.status == .seeOther && refused.headers[.location] == "/exchange")
      #expect(try await browser.get("/exchange").html.contains(PointError.optionUnavailable.message))
    }
    #expect(sandbox.log().count == 1)
  }

  /// `pointapp exchanges reconcile`: a day whose request and order agree has no difference (the
  /// request made on the test's day, its order on the sandbox's, found by its key); an order for
  /// no request of ours, and an order whose code is not the one delivered, are listed.
  @Test func reconciliationListsEveryDifference() async throws {
    let sandbox = try await SandboxProvider.start()
    let server = try TestServer()
    let (user, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    let settings = GiftProviderSettings(url: sandbox.url, credentialsFile: sandbox.credentials.path)
    try await server.application(giftProvider: settings).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(
        client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory, pending: false
      )
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
    }
    let reconciliation = try ExchangeReconciliation(backend: try FileBackend(server.dataDirectory), provider: settings)
    let agreed = try await reconciliation.report(on: Day(noon, in: .tokyo))
    #expect(agreed.requests == 1 && agreed.differences.isEmpty, "\(agreed.differences)")
    // An order nobody asked for, on the sandbox's day; and the delivered request's order changed.
    let stray = TransactionID(UUID())
    _ = try await sandbox.provider().issue(key: stray, product: "gift-300")
    let key = UUID(0).uuidString.lowercased()
    let orderFile = sandbox.server.folder.appendingPathComponent("orders/\(key).json")
    var order = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: orderFile)) as? [String: Any])
    order["code"] = "ZZZZ-ZZZZ-ZZZZ-ZZZZ"
    try JSONSerialization.data(withJSONObject: order).write(to: orderFile)
    let today = try await reconciliation.report(on: Day(Date(), in: .tokyo))
    #expect(today.differences.contains { $0.hasPrefix("key \(stray.rawValue.uuidString.lowercased()): the provider issued") })
    let changed = try await reconciliation.report(on: Day(noon, in: .tokyo))
    let code = try await Self.delivered(server, user)
    #expect(changed.differences == ["\(user.rawValue) request 1 (key \(key)): delivered \(code.masked), the provider issued ••••-••••-••••-ZZZZ"])
    // Nothing printed shows a code in full.
    #expect(!(today.differences + changed.differences).joined().contains(code.value))
  }

  /// A code the provider issued is found nowhere in plain text: in no file of the data folder
  /// (states, archive, queues, logs), in no name; the member's page shows it.
  @Test func aCodeIsFoundNowhereInTheDataFolderAsPlainText() async throws {
    let sandbox = try await SandboxProvider.start()
    let server = try TestServer()
    let (user, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    try await server.application(giftProvider: GiftProviderSettings(url: sandbox.url, credentialsFile: sandbox.credentials.path)).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(
        client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory, pending: false
      )
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
      let code = try #require(sandbox.log().first?.split(separator: " ").last.map(String.init))
      #expect(try await browser.get("/exchange/history/1").html.contains("<code>\(code)</code>"))
      #expect(try await Self.delivered(server, user).value == code)
      #expect(try Self.files(in: server.dataDirectory, containing: code).isEmpty)
      // (The witness that the search finds what is there: the sandbox's own ledger holds it.)
      #expect(try Self.files(in: sandbox.server.folder, containing: code).count == 2)
    }
  }

  @Test(.enabled(if: TestDatabase.enabled, TestDatabase.notInstalled))
  func onPostgreSQLACodeIsFoundInNoRowAsPlainText() async throws {
    let sandbox = try await SandboxProvider.start()
    let database = try await TestDatabase.make()
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(
      server, users: UserStates(PostgresBackend(database)), sessions: SessionRecords(PostgresRecordStorage(database, table: "sessions"))
    )
    let settings = GiftProviderSettings(url: sandbox.url, credentialsFile: sandbox.credentials.path)
    try await server.application(databaseURL: database.url, giftProvider: settings).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(client, cookie: seeded, mail: PostgresBackend(database), data: server.dataDirectory, pending: false)
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
    }
    let code = try #require(sandbox.log().first?.split(separator: " ").last.map(String.init))
    let tables = try await database.query("SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()")
      .map { try $0.decode(String.self) }
    #expect(tables.contains("users") && tables.contains("gift_codes"))
    var rows = 0
    for table in tables {
      for row in try await database.query("SELECT t::text FROM \"\(unescaped: table)\" t") {
        rows += 1
        let text = try row.decode(String.self)
        #expect(!text.contains(code), "\(table): \(text.prefix(200))")
      }
    }
    #expect(rows > 10)
  }

  /// The files under `folder` whose name or bytes hold `text`.
  static func files(in folder: URL, containing text: String) throws -> [String] {
    let walker = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]))
    var found: [String] = []
    for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
      let bytes = try Data(contentsOf: file)
      if file.lastPathComponent.contains(text) || bytes.range(of: Data(text.utf8)) != nil { found.append(file.path) }
    }
    return found
  }

  /// The code request 1 of `user` was delivered with, from the saved state.
  static func delivered(_ server: TestServer, _ user: UserID) async throws -> GiftCode {
    let data = try #require(try await server.users.read(user))
    guard case let .fulfilled(code, _)? = try SavedState.state(from: data).progress.exchangeRequest(1)?.status else {
      throw ScriptServerFailure(description: "request 1 is not fulfilled")
    }
    return code
  }

  /// The user's state unreadable when the source answers (a disk error, a database down): the
  /// answer cannot be recorded, so the request's claim is let go at once, not held for its lease,
  /// and once the state reads again a later pass delivers the code, asked for by key.
  @Test func anAnswerThatCannotBeRecordedLetsTheRequestGoAndIsDeliveredLater() async throws {
    let server = try TestServer()
    let (user, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    let file = server.dataDirectory.appendingPathComponent("users/\(user.rawValue).json")
    let queue = ExchangeQueue(storage: try FileRecordStorage(server.dataDirectory.appendingPathComponent("exchanges-pending")))
    let entry = ExchangeQueue.Entry(user: user, number: 1)
    let source = StubGiftSource()
    let saved = Mutex<Data?>(nil)
    source.beforeAnswering.withLock { hook in
      hook = {
        saved.withLock { $0 = try? Data(contentsOf: file) }
        try? Data("{".utf8).write(to: file)
      }
    }
    try await server.application(giftSource: source).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(
        client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory, pending: false
      )
      #expect(source.issued.withLock { $0 } == 1)
      // The clock is pinned: a claim held would never run out.
      try await eventually { try await queue.waiting(entry).map { $0.claim == nil } == true }
      try #require(saved.withLock { $0 }).write(to: file)
      try await eventually { try await browser.get("/exchange/history/1").html.contains("<code>\(source.code.value)</code>") }
    }
    #expect(try await queue.waiting(entry) == nil)
  }

  /// A source slower than the form's wait: the form answers 申請中 and stops waiting, its call
  /// cancelled; the request is let go at once (not held for the lease) and the fulfiller's next
  /// pass delivers it.
  @Test(arguments: [false, true])
  func aCallTheFormStopsWaitingForLetsTheRequestGo(throughHTTP: Bool) async throws {
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    // The stub's call ends in CancellationError; the HTTP client's, in an error of its own.
    let source = StubGiftSource()
    source.delay.withLock { $0 = .seconds(4) }
    let sandbox = throughHTTP ? try await SandboxProvider.start(["--delay", "4"]) : nil
    let provider = sandbox.map { GiftProviderSettings(url: $0.url, credentialsFile: $0.credentials.path) }
    try await server.application(giftSource: provider == nil ? source : nil, giftProvider: provider).test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      // The clock is pinned: a claim held, or a backoff, would never run out.
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
      let code = sandbox.flatMap { $0.log().first?.split(separator: " ").last.map(String.init) } ?? source.code.value
      #expect(try await browser.get("/exchange/history/1").html.contains("<code>\(code)</code>"))
    }
    #expect(sandbox.map { $0.log().count == 1 } ?? true, "one order")
  }

  /// The built-in issuer (no provider configured): the pages say its codes work nowhere.
  @Test func theBuiltInIssuersCodesAreSaidToBeForTesting() async throws {
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    try await server.application().test(.router) { client in
      var browser = try await PendingExchangeTests.requestExchange(
        client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory, pending: false
      )
      for path in ["/exchange", "/exchange/history/1"] {
        #expect(try await browser.get(path).html.contains("発行されるコードはテスト用で、どこでも使えません"), "\(path)")
      }
    }
  }

  /// A provider's address or credentials that cannot work stop the server at start, saying why.
  @Test func aProviderThatCannotBeCalledStopsTheStart() async throws {
    let server = try TestServer()
    let key = scratch("no-such-key")
    for (url, file, says) in [
      ("http://127.0.0.1:9", key.path, "cannot read the provider's credentials"),
      ("ftp://gifts.example.jp", key.path, "must be http(s)://host[:port]"),
      ("https://gifts.example.jp/v1", key.path, "must be http(s)://host[:port]"),
    ] {
      do {
        _ = try await server.application(giftProvider: GiftProviderSettings(url: url, credentialsFile: file))
        Issue.record("\(url) started")
      } catch {
        #expect("\(error)".contains(says), "\(error)")
      }
    }
  }
}

struct ExpiryHTTPTests {
  @Test func aReturningUsersFirstPageShowsTheBalanceWithoutExpiredPointsAndTheExpiryOnce() async throws {
    let server = try TestServer()
    let user = try #require(UserID("0123456789abcdef0123456789abcdef"))
    var state = AppFeature.State()
    func earn(_ id: String, _ reward: PointAmount, at date: Date) {
      let survey = Survey(id: SurveyID(id), title: id, description: "", category: .food, questions: [], reward: reward, estimatedMinutes: 1, publishedAt: date, expiresAt: nil)
      state.progress.recordAnswer(to: survey, with: [], id: TransactionID(UUID()), at: date, on: Day(date, in: .tokyo))
    }
    earn("october-2025", 500, at: noon - 86_400 * 400)  // 2025-10-18: expired when October 2026 ended
    earn("november-2026", 40, at: noon - 86_400)
    try await server.users.replace(user, with: state)
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      #expect(AccountTests.balance(try await browser.get("/points")) == "40pt")
      let history = try await browser.get("/points/history").html
      #expect(history.components(separatedBy: "有効期限切れによる失効（2025年10月獲得分）").count == 2, "written once")
      #expect(history.contains("−500pt"))
      let saved = try server.files()
      _ = try await browser.get("/points")
      _ = try await browser.get("/points/history")
      #expect(try server.files() == saved, "nothing more to write")
    }
    let ledger = try SavedState.state(from: try #require(try await server.users.read(user))).progress.ledger
    #expect(ledger.recent.filter { if case .expiry = $0.reason { true } else { false } }.count == 1)
    #expect(ledger.balance == 40 && ledger.lots.remaining == 40)
  }
}

/// `/exchange/history` lists every request: the oldest are read back from the user's archive,
/// page by page, and each archived request's page still shows its code to its owner.
struct ExchangeHistoryHTTPTests {
  static func code(_ number: Int) -> GiftCode { GiftCode(String(format: "AAAA-BBBB-CCCC-%04d", number)) }

  @Test func everyRequestIsListedAndOpensArchivedOnesIncluded() async throws {
    let server = try TestServer()
    let user = try #require(UserID("0123456789abcdef0123456789abcdef"))
    var state = AppFeature.State()
    let start = noon - 86_400 * 200
    let gift = ExchangeOption.all[0]
    state.progress.recordAnswer(
      to: Survey(id: SurveyID("big"), title: "", description: "", category: .food, questions: [], reward: 135_000, estimatedMinutes: 1, publishedAt: start, expiresAt: nil),
      with: [], id: TransactionID(UUID()), at: start, on: Day(start, in: .tokyo)
    )
    for index in 0..<45 {  // one every four days: the newest five in the newest month
      let request = try state.progress.requestExchange(gift, id: TransactionID(UUID()), at: start + Double(86_400 * 4 * index) + 60)
      _ = state.progress.fulfilExchange(request.number, with: Self.code(request.number), at: request.requestedAt)
    }
    try await server.users.replace(user, with: state)
    #expect(try server.files().keys.contains { $0.hasSuffix("exchanges-0.json") }, "the oldest twenty are archived")
    let held = try SavedState.state(from: try #require(try await server.users.read(user))).progress
    #expect(held.archivedExchangeCount == 20 && held.exchanges.count == 25)

    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      let csrf = try await browser.csrf(from: "/register")
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      func numbers(_ html: String) -> [Int] {
        html.matches(of: #/申請番号(\d+) /#).map { Int($0.1)! }
      }
      let first = try await browser.get("/exchange/history").html
      #expect(numbers(first) == Array((26...45).reversed()))
      #expect(first.contains(#"href="/exchange/history?page=2""#) && first.contains("1 / 3"))
      let second = try await browser.get("/exchange/history?page=2").html
      #expect(numbers(second) == Array((6...25).reversed()), "held and archived requests on one page")
      let last = try await browser.get("/exchange/history?page=3").html
      #expect(numbers(last) == [5, 4, 3, 2, 1])
      #expect(last.contains(Self.code(5).masked) && !last.contains(Self.code(5).value), "masked in the list")
      #expect(!last.contains("?page=4"))
      try await PageSnapshotTests().snapshot("/exchange/history?page=2", named: "exchange-history-archived", with: &browser)
      let seventh = try await browser.get("/exchange/history/7")
      #expect(seventh.status == .ok && seventh.html.contains(Self.code(7).value), "an archived request's page shows its code")
      #expect(try await browser.get("/exchange/history/46").status == .notFound)
      #expect(try await browser.get("/exchange/history?page=x").status == .badRequest)
    }
  }
}
