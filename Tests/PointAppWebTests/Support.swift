import Dependencies
import Foundation
import Logging
import Hummingbird
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Prometheus
import Synchronization
import Testing

/// 2026-11-22 12:00 in Tokyo.
let noon = Date(timeIntervalSince1970: 1_795_316_400)
let secret = Data(repeating: 7, count: 32)
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A small catalog: two open surveys (one with every kind of question) and an expired one.
let testCatalog: [Survey] = [
  Survey(
    id: SurveyID("breakfast"), title: "朝ごはんアンケート", description: "朝食の習慣について", category: .food,
    questions: [
      SurveyQuestion(id: QuestionID("frequency"), text: "朝ごはんを食べる頻度は？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("daily"), label: "ほぼ毎日"), .init(id: ChoiceID("rarely"), label: "ほとんどない"),
      ])),
      SurveyQuestion(id: QuestionID("foods"), text: "よく食べるものは？", kind: .multipleChoice(choices: [
        .init(id: ChoiceID("rice"), label: "ごはん"), .init(id: ChoiceID("bread"), label: "パン"),
        .init(id: ChoiceID("fruit"), label: "果物"),
      ], minPicks: 1, maxPicks: 2)),
      SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating),
      SurveyQuestion(id: QuestionID("comment"), text: "ひとことどうぞ", kind: .freeText(required: false, maxLength: 50)),
    ],
    reward: 40, estimatedMinutes: 2, publishedAt: noon - 86_400 * 3, expiresAt: noon + 86_400 * 30
  ),
  Survey(
    id: SurveyID("sweets"), title: "スイーツ調査", description: "コンビニスイーツについて", category: .food,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 60, estimatedMinutes: 3, publishedAt: noon - 86_400, expiresAt: nil
  ),
  Survey(
    id: SurveyID("old"), title: "終わった調査", description: "終了", category: .travel,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 500, estimatedMinutes: 1, publishedAt: noon - 86_400 * 90, expiresAt: noon - 86_400
  ),
]

/// A fresh path for a test's files, `<name>-<UUID>`, in a folder of this test run's own
/// (`pointapp-tests-<pid>` in the temporary directory), which goes when the run ends: a test
/// run used to leave every data folder it made behind, gigabytes over a few runs.
func scratch(_ name: String) -> URL {
  scratchRoot.appendingPathComponent("\(name)-\(UUID().uuidString)")
}

private let scratchRoot: URL = {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-tests-\(ProcessInfo.processInfo.processIdentifier)")
  try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  atexit { try? FileManager.default.removeItem(at: scratchRoot) }
  return root
}()

/// A server on a fresh temporary data folder with fixed boundaries.
struct TestServer {
  let dataDirectory: URL
  /// The data folder's users, as another process sharing the folder sees them.
  let users: UserStates

  /// bcrypt at its smallest cost: tests check the flows, not the work factor.
  static let hasher = PasswordHasher(cost: 4)

  init() throws {
    dataDirectory = scratch("data")
    users = UserStates(try FileBackend(dataDirectory))
  }

  func application(
    catalog: [Survey] = testCatalog, surveyClient: SurveyClient? = nil, backend: (any RecordBackend)? = nil,
    secureCookies: Bool = false, logger: Logger? = nil, metrics: PrometheusCollectorRegistry? = nil,
    trustedProxies: Set<String> = [], loginsPerMinute: Int = LoginLimits.attemptsPerMinute, databaseURL: String? = nil, sessions: (any RecordStorage)? = nil, poolSize: Int = 4,
    storeCatalog: Bool = false, routes: RouteList? = nil, giftSource: (any GiftSource)? = nil, logLevel: Logger.Level = .info,
    hasher: PasswordHasher = TestServer.hasher, now: Date = noon, giftProvider: GiftProviderSettings? = nil
  ) async throws -> some ApplicationProtocol {
    var configuration = AppConfiguration()
    configuration.giftProvider = giftProvider
    configuration.exchangeCensusInterval = .seconds(1)
    configuration.logLevel = logLevel
    // With a database, every store is the database's: an instance of several.
    configuration.databaseURL = databaseURL
    configuration.databasePoolSize = poolSize  // the tests' cluster serves many pools at once
    // Many tests' instances share one cluster, and a slow machine's whole suite keeps it busy:
    // a request waits, as the tests' pools do, rather than being answered 503.
    configuration.databaseWaitLimit = TestDatabase.waitLimit
    configuration.secureCookies = secureCookies
    configuration.trustedProxies = trustedProxies
    configuration.loginsPerMinute = loginsPerMinute
    configuration.dataDirectory = dataDirectory
    configuration.templatesDirectory = repositoryRoot.appendingPathComponent("Templates")
    configuration.publicDirectory = repositoryRoot.appendingPathComponent("Public")
    configuration.maxBodySize = 16 * 1024
    return try await buildApplication(configuration, backend: backend, sessions: sessions, secret: secret, logger: logger, metrics: metrics,
      passwordHasher: hasher, routes: routes, giftSource: giftSource
    ) {
      $0.date.now = now
      $0.uuid = .incrementing
      $0.continuousClock = ContinuousClock()
      // With `storeCatalog`, the catalog in the store (the shipped one, seeded at noon), which
      // operators change.
      if !storeCatalog { $0.surveyClient = surveyClient ?? .catalog(catalog) }
    }
  }

  /// Every user's state and archive record with its bytes, by file name: `<user>.json`, and
  /// `<user>~<name>.json` for the archive's.
  func files() throws -> [String: Data] {
    var files: [String: Data] = [:]
    for folder in ["users", "user-archive"] {
      let folder = dataDirectory.appendingPathComponent(folder)
      for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasSuffix(".json") && !name.hasPrefix(".") {
        let path = folder.appendingPathComponent(name).path
        files[name] = try FileRecordStorage.parse(try Data(contentsOf: URL(fileURLWithPath: path)), path: path).data
      }
    }
    return files
  }
}

/// Keeps a session cookie between requests and reads CSRF tokens from pages, as a browser does.
struct Browser {
  let client: any TestClientProtocol
  var cookie: String?
  /// The cookie it keeps: a user's session, or an operator's on the console (`console(_:)`).
  var cookieName = Sessions.cookieName
  /// The state cookie as last set (`Sessions.stateCookie`), sent back as a browser does.
  var state: String?

  /// An operator's browser on the console.
  static func console(_ client: any TestClientProtocol, cookie: String? = nil) -> Browser {
    Browser(client: client, cookie: cookie, cookieName: OperatorSessions.cookieName)
  }

  @discardableResult
  mutating func get(_ uri: String) async throws -> TestResponse {
    try await request(uri, method: .get)
  }

  /// A GET that follows the 303s it gets (an export not cut yet leads to its cut address).
  @discardableResult
  mutating func following(_ uri: String) async throws -> TestResponse {
    var response = try await get(uri)
    for _ in 0..<5 where response.status == .seeOther {
      response = try await get(response.headers[.location] ?? "")
    }
    return response
  }

  @discardableResult
  mutating func post(_ uri: String, form: String, headers extra: HTTPFields = [:]) async throws -> TestResponse {
    var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
    headers.append(contentsOf: extra)
    return try await request(uri, method: .post, headers: headers, body: form)
  }

  mutating func request(_ uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: String = "") async throws -> TestResponse {
    var headers = headers
    let sent = [cookie, state].compactMap { $0 }
    if !sent.isEmpty { headers[.cookie] = sent.joined(separator: "; ") }
    let response = try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body))
    let setCookies = response.headers[values: .setCookie]
    if let setCookie = setCookies.first(where: { $0.hasPrefix("\(cookieName)=") }) {
      cookie = String(setCookie.prefix { $0 != ";" })
    }
    if let setCookie = setCookies.first(where: { $0.hasPrefix("\(Sessions.stateCookieName)=") }) {
      state = String(setCookie.prefix { $0 != ";" })
    }
    return response
  }

  /// The session id the cookie carries (before the server's mark).
  var sessionID: String? {
    cookie?.split(separator: "=", maxSplits: 1).last?.split(separator: ".").first.map(String.init)
  }

  /// The CSRF token of the first form on a page.
  mutating func csrf(from uri: String) async throws -> String {
    try await hidden("csrf", from: uri)
  }

  /// The CSRF token of the first form on `page`.
  func csrf(in page: TestResponse) throws -> String {
    let marker = #"name="csrf" value=""#
    let start = try #require(page.html.range(of: marker)).upperBound
    return String(page.html[start...].prefix { $0 != "\"" })
  }

  /// The value of the hidden field `name` on the page at `uri`.
  mutating func hidden(_ name: String, from uri: String) async throws -> String {
    let html = String(buffer: try await get(uri).body)
    let marker = "name=\"\(name)\" value=\""
    let start = try #require(html.range(of: marker)).upperBound
    return String(html[start...].prefix { $0 != "\"" })
  }
}

extension TestResponse {
  var html: String { String(buffer: body) }
}

/// The mail a test server sent: waiting in its queue (read from `backend` as another process
/// would), or delivered already by its sender into the outbox folder of `data`.
enum Mailbox {
  /// The bodies of the messages to `address` in queue order, oldest first: messages queued at the
  /// same moment (a test's pinned clock) come in any order among themselves. Each once, though the
  /// sender moves it from the queue to the folder while they are read.
  static func messages(to address: String, in backend: any RecordBackend, data: URL) async throws -> [String] {
    var found: [String: String] = [:]
    for message in try await MailQueue(backend).waiting(after: nil, limit: 10_000) where message.to == address {
      found[message.name.recordName] = message.body
    }
    let outbox = data.appendingPathComponent("mail-outbox")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? [] where name.hasSuffix(".eml") && !name.hasPrefix(".") {
      let text = try String(contentsOf: outbox.appendingPathComponent(name), encoding: .utf8)
      guard let split = text.range(of: "\r\n\r\n"), text[..<split.lowerBound].contains("\r\nTo: <\(address)>") else { continue }
      found[String(name.dropLast(4))] = String(text[split.upperBound...]).replacingOccurrences(of: "\r\n", with: "\n")
    }
    return found.sorted { $0.key < $1.key }.map(\.value)
  }

  /// The users the messages of `kind` were queued under (the mail log's, once delivered), each
  /// message once.
  static func users(ofKind kind: String, in backend: any RecordBackend, data: URL) async throws -> [UserID?] {
    let queue = MailQueue(backend)
    var found: [String: UserID?] = [:]
    for message in try await queue.waiting(after: nil, limit: 10_000) where message.kind == kind { found[message.id] = message.user }
    let outbox = data.appendingPathComponent("mail-outbox")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? [] where name.hasSuffix(".eml") && !name.hasPrefix(".") {
      // `<m|b>-<place>-<id>.eml`
      let id = String(name.dropLast(4).split(separator: "-", maxSplits: 2).last ?? "")
      if let outcome = try await queue.outcome(id), outcome.kind == kind { found[id] = outcome.user }
    }
    return found.sorted { $0.key < $1.key }.map(\.value)
  }

  /// The token of the newest verification link sent to `address`.
  static func verificationToken(to address: String, in backend: any RecordBackend, data: URL) async throws -> String? {
    try await messages(to: address, in: backend, data: data).compactMap { body in
      body.firstMatch(of: /\/account\/verify\?token=([0-9a-f]{64})/).map { String($0.1) }
    }.last
  }

  /// The token of the newest password reset link sent to `address`.
  static func resetToken(to address: String, in backend: any RecordBackend, data: URL) async throws -> String? {
    try await messages(to: address, in: backend, data: data).compactMap { body in
      body.firstMatch(of: /\/password\/reset\?token=([0-9a-f]{64})/).map { String($0.1) }
    }.last
  }
}

extension Browser {
  /// Registers `email` with `AccountTests.password`, then opens the verification link the
  /// registration queued in `backend` as its owner would from the mail: an account that exchanges.
  mutating func registerVerified(_ email: String = "hanako@example.jp", in backend: any RecordBackend, data: URL) async throws {
    let csrf = try await csrf(from: "/register")
    let form = "csrf=\(csrf)&email=\(email.replacingOccurrences(of: "@", with: "%40"))&password=correct+horse+battery"
    #expect(try await post("/register", form: form).headers[.location] == "/points")
    try await verifyAddress(email, in: backend, data: data)
  }

  /// Opens the newest verification link sent to `email` and presses its button.
  mutating func verifyAddress(_ email: String, in backend: any RecordBackend, data: URL) async throws {
    let token = try #require(try await Mailbox.verificationToken(to: email, in: backend, data: data))
    let csrf = try await csrf(from: "/account/verify?token=\(token)")
    let verified = try await post("/account/verify", form: "csrf=\(csrf)&token=\(token)")
    #expect(verified.status == .seeOther)
  }
}

/// Runs `body`, which blocks its thread (a child process waited for), on a thread of its own. The
/// tests' tasks share a cooperative pool of one thread a core: two blocked for seconds (a
/// PostgreSQL cluster starting, LibreOffice converting) stalled every other test, and an unrelated
/// store's 5 s deadline passed (seen once in CI).
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}

/// One of the repository's test servers (`Scripts/<script>`: the SMTP server, the sandbox gift
/// provider) as a process of its own with a folder of its own (`--folder`): returned once it says
/// "ready PORT"; stopped, and its folder removed, when released.
final class ScriptServer: Sendable {
  let folder: URL
  let port: Int
  private let process: Process

  private init(folder: URL, port: Int, process: Process) {
    (self.folder, self.port, self.process) = (folder, port, process)
  }

  /// Starts `script` with `options`, within 30 s or it throws.
  static func start(_ script: String, _ options: [String]) async throws -> ScriptServer {
    let folder = scratch("\(script.prefix { $0 != "." })")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", repositoryRoot.appendingPathComponent("Scripts/" + script).path, "--folder", folder.path] + options
    let output = Pipe()
    process.standardOutput = output
    // Not the test run's: `swift test` reads that to its end, which a server still running holds
    // off. A file of its own, for a failing test to show (`errors`).
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: folder.appendingPathComponent("stderr").path, contents: nil) else {
      throw ScriptServerFailure(description: "\(script): no file for its standard error in \(folder.path)")
    }
    process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr"))
    try process.run()
    // Its first line, read on a thread of its own (a blocking read on the test library's threads
    // would hold up other tests); past 30 s it is stopped, which ends the read.
    let ready = Mutex(false)
    DispatchQueue.global().asyncAfter(deadline: .now() + 30) { if !ready.withLock({ $0 }) { process.terminate() } }
    let handle = output.fileHandleForReading
    let text = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
      Thread {
        var line = Data()
        while !line.contains(10), let byte = try? handle.read(upToCount: 1), !byte.isEmpty { line += byte }
        continuation.resume(returning: String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
      }.start()
    }
    ready.withLock { $0 = true }
    guard text.hasPrefix("ready "), let port = Int(text.dropFirst(6)) else {
      process.terminate()
      throw ScriptServerFailure(description: "\(script) did not start: \(text)")
    }
    return ScriptServer(folder: folder, port: port, process: process)
  }

  /// What it wrote to its standard error so far (its log, where it keeps one).
  var errors: String {
    (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
  }

  deinit {
    process.terminate()
    try? FileManager.default.removeItem(at: folder)
  }
}

struct ScriptServerFailure: Error, CustomStringConvertible {
  let description: String
}

/// Waits (up to 20 s) until `done` holds: for what the server's background tasks do (its mail
/// sender, its notice passes, its exchange fulfiller), each every second.
func eventually(_ done: () async throws -> Bool) async throws {
  for _ in 0..<200 {
    if try await done() { return }
    try await Task.sleep(for: .milliseconds(100))
  }
  Issue.record("not within 20 s")
}

/// A gift source the test drives: out of reach until `up`; while not `issuing`, its orders say
/// nothing (its cancellations still answer); then issuing `code` (counted), or refusing.
final class StubGiftSource: GiftSource {
  let up = Mutex(true)
  let issuing = Mutex(true)
  let refuses = Mutex(false)
  /// Issues, then loses its answer (the connection drops): the caller hears nothing.
  let dropsAnswer = Mutex(false)
  let issued = Mutex(0)
  let cancelled = Mutex(0)
  let statusAsked = Mutex(0)
  let code = GiftCode("7K3M-Q9PZ-2HXD-W4RA")

  init(up: Bool = true, issuing: Bool = true) {
    self.up.withLock { $0 = up }
    self.issuing.withLock { $0 = issuing }
  }

  /// Run once at the next order, as the source makes it (the test breaks something meanwhile).
  let beforeAnswering = Mutex<(@Sendable () -> Void)?>(nil)

  /// How long each order takes.
  let delay = Mutex(Duration.zero)

  func issue(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await Task.sleep(for: delay.withLock { $0 })
    guard up.withLock({ $0 }), issuing.withLock({ $0 }) else { throw GiftProviderFailure("down") }
    if refuses.withLock({ $0 }) { return .refused("rejected") }
    issued.withLock { $0 += 1 }
    beforeAnswering.withLock { hook in
      hook?()
      hook = nil
    }
    if dropsAnswer.withLock({ $0 }) { throw GiftProviderFailure("the connection dropped") }
    return .issued(code)
  }

  func status(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    guard up.withLock({ $0 }) else { throw GiftProviderFailure("down") }
    statusAsked.withLock { $0 += 1 }
    return issued.withLock { $0 } > 0 ? .issued(code) : .none
  }

  func cancel(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    guard up.withLock({ $0 }) else { throw GiftProviderFailure("down") }
    cancelled.withLock { $0 += 1 }
    return issued.withLock { $0 } > 0 ? .issued(code) : .refused("cancelled")
  }

  /// What the stub is told to offer.
  let offered = Mutex(GiftOffer())

  func offer() async throws -> GiftOffer {
    guard up.withLock({ $0 }) else { throw GiftProviderFailure("down") }
    return offered.withLock { $0 }
  }
}
