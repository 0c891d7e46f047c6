import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import Synchronization
import Testing

@testable import PointAppWeb

/// The console under /admin: who reaches it, signing in and out, closing a survey early, the
/// audit log.
struct AdminTests {
  static let email = "ops@example.jp"
  static let password = "correct horse battery"

  /// A server on a fresh folder with one operator, serving the catalog in its store.
  static func server() async throws -> TestServer {
    let server = try TestServer()
    try await createOperator(
      email: email, password: password,
      operators: FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")),
      audit: FileRecordStorage(server.dataDirectory.appendingPathComponent("audit")),
      hasher: TestServer.hasher, now: noon - 3_600
    )
    try await enrol(email, in: server)
    return server
  }

  /// Another operator of `role` in `server`'s store, with the tests' authenticator when
  /// `enrolled`.
  static func addOperator(_ address: String, role: OperatorRole, enrolled: Bool, to server: TestServer) async throws {
    try await createOperator(
      email: address, password: password, role: role,
      operators: FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")),
      audit: FileRecordStorage(server.dataDirectory.appendingPathComponent("audit")), hasher: TestServer.hasher, now: noon - 60
    )
    if enrolled { try await enrol(address, in: server) }
  }

  /// The authenticator and the recovery codes the tests' operators have.
  static let totpSecret = Data("12345678901234567890".utf8)
  static let recoveryCodes = (0..<10).map { "test\($0)-codes" }

  /// Gives `email`'s operator the tests' authenticator and recovery codes, as enrolling would.
  static func enrol(_ email: String, in server: TestServer) async throws {
    let operators = OperatorRecords(try FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")))
    try await operators.modify(OperatorID(email: email)) { found in
      var found = found!
      found.totp = TOTPEnrolment(secret: Base32.encode(totpSecret), lastStep: nil, enrolled: noon - 3_600)
      found.recoveryCodes = recoveryCodes.map(OperatorService.recoveryHash)
      return (found, ())
    }
  }

  /// How many times each data folder's operators signed in: with the clock pinned, the first
  /// two sign-ins take the authenticator's codes of noon and the step after (a code is never
  /// taken twice), the others a recovery code each.
  static let signIns = Mutex<[String: Int]>([:])

  /// The second factor's code for the next sign-in to `server`.
  static func nextCode(_ server: TestServer) -> String {
    let index = signIns.withLock { counts in
      defer { counts[server.dataDirectory.path, default: 0] += 1 }
      return counts[server.dataDirectory.path, default: 0]
    }
    let step = TOTP.step(at: noon)
    return index < 2 ? TOTP(secret: totpSecret).code(at: step + Int64(index)) : recoveryCodes[index - 2]
  }

  /// An operator's browser, signed in with the password and the second factor.
  static func signIn(_ client: some TestClientProtocol, _ server: TestServer, as address: String = email) async throws -> Browser {
    var console = Browser.console(client)
    let form = try await console.get("/admin/login")
    #expect(form.status == .ok)
    let csrf = try console.csrf(in: form)
    let escaped = address.replacingOccurrences(of: "@", with: "%40")
    let signedIn = try await console.post("/admin/login", form: "csrf=\(csrf)&email=\(escaped)&password=correct+horse+battery")
    #expect(signedIn.status == .seeOther)
    #expect(signedIn.headers[.location] == "/admin/login/code")
    let token = try console.csrf(in: try await console.get("/admin/login/code"))
    let given = try await console.post("/admin/login/code", form: "csrf=\(token)&code=\(nextCode(server))")
    #expect(given.status == .seeOther)
    #expect(given.headers[.location] == "/admin/surveys" || given.headers[.location] == "/admin/users")
    return console
  }

  /// Every route the router has under /admin, every method it takes there, with a guest's and
  /// with a signed-in user's session: each is 404, whatever the method. The list is the router's.
  @Test func everyAdminRouteIs404ToAGuestAndToAUser() async throws {
    let server = try await Self.server()
    let routes = RouteList()
    try await server.application(storeCatalog: true, routes: routes).test(.router) { client in
      let admin = routes.routes.withLock { $0 }.filter { $0.path.hasPrefix("/admin") }
      #expect(Set(admin.map(\.path)).count >= 6, "\(admin)")
      var guest = Browser(client: client)
      try await guest.get("/surveys")
      try await guest.get("/surveys")
      var user = Browser(client: client)
      try await user.get("/surveys")
      let csrf = try await user.csrf(from: "/register")
      let registered = try await user.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(registered.headers[.location] == "/points")
      for visitor in [guest, user] {
        for route in admin {
          let path = route.path.split(separator: "/").map { $0.hasPrefix(":") || $0.hasPrefix("{") ? "food-001" : String($0) }.joined(separator: "/")
          var browser = visitor
          let response = try await browser.request(
            "/" + path, method: .init(route.method)!, headers: [.contentType: "application/x-www-form-urlencoded"], body: "csrf=x"
          )
          #expect(response.status == .notFound, "\(route.method) \(path)")
          #expect(!response.html.contains("admin"), "nothing tells them the console exists")
        }
      }
    }
  }

  @Test func aSignedOutBrowserIsSentToTheSignInPageFromAdminOnly() async throws {
    let server = try await Self.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = Browser.console(client)
      let home = try await console.get("/admin")
      #expect(home.status == .seeOther)
      #expect(home.headers[.location] == "/admin/login")
      #expect(try await console.get("/admin/surveys").status == .notFound)
      #expect(try await console.get("/admin/audit").status == .notFound)
      let login = try await console.get("/admin/login")
      #expect(login.status == .ok)
      #expect(login.html.contains("運営コンソールにログイン"))
    }
  }

  @Test func aWrongPasswordIsRefusedSayingSoAndSignsNobodyIn() async throws {
    let server = try await Self.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = Browser.console(client)
      let csrf = try console.csrf(in: try await console.get("/admin/login"))
      let refused = try await console.post("/admin/login", form: "csrf=\(csrf)&email=ops%40example.jp&password=wrong+guess+here")
      #expect(refused.headers[.location] == "/admin/login?refused=1")
      #expect(try await console.get("/admin/login?refused=1").html.contains("メールアドレスまたはパスワードが正しくありません。"))
      #expect(try await console.get("/admin/surveys").status == .notFound)
      let forged = try await console.post("/admin/login", form: "csrf=forged&email=ops%40example.jp&password=correct+horse+battery")
      #expect(forged.status == .forbidden)
    }
  }

  /// An operator signs in, sees every survey with its state, closes one early: a user's list then
  /// shows it closed; the audit log has the sign-in and the closing with the deadline before and
  /// after; signing out ends the session.
  @Test func anOperatorClosesASurveyEarlyAndTheAuditLogSaysWhoWhenAndWhat() async throws {
    let server = try await Self.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = try await Self.signIn(client, server)
      let surveys = try await console.get("/admin/surveys")
      #expect(surveys.status == .ok)
      #expect(surveys.html.contains("朝ごはんに関するアンケート"))
      #expect(surveys.html.contains("公開中") && surveys.html.contains("終了") && surveys.html.contains("満了"))
      #expect(surveys.html.contains(Self.email))
      let csrf = try console.csrf(in: surveys)
      let closed = try await console.post("/admin/surveys/food-002/close", form: "csrf=\(csrf)")
      #expect(closed.headers[.location] == "/admin/surveys")
      #expect(try await console.post("/admin/surveys/no-such/close", form: "csrf=\(csrf)").status == .notFound)

      var user = Browser(client: client)
      try await user.get("/surveys")
      let page = try await user.get("/surveys/food-002")
      #expect(page.html.contains("受付終了") || page.html.contains("受付は終了"))

      let audit = try await console.get("/admin/audit")
      #expect(audit.status == .ok)
      #expect(audit.html.contains("アンケートを締め切り") && audit.html.contains("food-002"))
      #expect(audit.html.contains("変更前: 締切なし"))
      #expect(audit.html.contains("ログイン") && audit.html.contains("運営者を作成"))
      #expect(try await console.get("/admin/audit?from=../../etc").status == .notFound)

      let out = try await console.post("/admin/logout", form: "csrf=\(csrf)")
      #expect(out.headers[.location] == "/admin/login")
      #expect(try await console.get("/admin/surveys").status == .notFound)
    }
    let entries = try await AuditLog(FileRecordStorage(server.dataDirectory.appendingPathComponent("audit"))).page(after: nil).entries
    #expect(entries.map(\.action) == [.signedOut, .surveyClosed, .secondFactorGiven, .signedIn, .operatorCreated])
    #expect(entries.allSatisfy { $0.operatorEmail == Self.email })
  }

  /// Two servers on one data folder (two processes, as far as the catalog goes: each has its own
  /// copy in memory): a survey closed through one is 受付終了 on the other within 5 seconds, with
  /// no restart.
  @Test func aSurveyClosedThroughOneServerIsClosedOnAnotherWithinFiveSeconds() async throws {
    let server = try await Self.server()
    let other = try await server.application(storeCatalog: true)
    try await server.application(storeCatalog: true).test(.live) { client in
      try await other.test(.live) { otherClient in
        var user = Browser(client: otherClient)
        try await user.get("/surveys")
        #expect(!(try await user.get("/surveys/food-002").html.contains("このアンケートの受付は終了しました")))
        var console = try await Self.signIn(client, server)
        let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
        #expect(try await console.post("/admin/surveys/food-002/close", form: "csrf=\(csrf)").headers[.location] == "/admin/surveys")
        let closed = ContinuousClock.now
        var seen = false
        while !seen, ContinuousClock.now - closed < .seconds(5) {
          try await Task.sleep(for: .milliseconds(100))
          seen = try await user.get("/surveys/food-002").html.contains("このアンケートの受付は終了しました")
        }
        #expect(seen, "the other server serves the change within 5 seconds")
      }
    }
  }

  /// An operator's session is never a user's, and the reverse; an operator idle for 8 hours is
  /// signed out.
  @Test func anOperatorsSessionIsNeverAUsersAndEndsAfterEightIdleHours() async throws {
    let server = try await Self.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      let console = try await Self.signIn(client, server)
      let value = try #require(console.cookie?.split(separator: "=", maxSplits: 1).last.map(String.init))
      var asUser = Browser(client: client, cookie: "\(Sessions.cookieName)=\(value)")
      #expect(AccountTests.balance(try await asUser.get("/points")) == "0pt")
      #expect(asUser.sessionID != value.split(separator: ".").first.map(String.init), "a new visitor")
      // The operator's own id, without the server's mark on it, is nobody's.
      let operatorID = try #require(value.split(separator: ".").first)
      for forged in ["\(operatorID).0123456789abcdef", "\(operatorID).", "\(operatorID)"] {
        var stranger = Browser.console(client, cookie: "\(OperatorSessions.cookieName)=\(forged)")
        #expect(try await stranger.get("/admin/surveys").status == .notFound, "\(forged) is nobody's")
      }

      var user = Browser(client: client)
      try await user.get("/surveys")
      try await user.get("/surveys")
      let userValue = try #require(user.cookie?.split(separator: "=", maxSplits: 1).last.map(String.init))
      var asOperator = Browser.console(client, cookie: "\(OperatorSessions.cookieName)=\(userValue)")
      #expect(try await asOperator.get("/admin/surveys").status == .notFound)
      _ = try await user.get("/points")
    }
    let records = try server.sessionRecords()
    let id = SessionID.random()
    #expect(try await records.create(
      SessionRecord(user: nil, lastSeen: noon - OperatorSessions.idleLimit, operator: OperatorID(email: Self.email)), as: id
    ))
    try await server.application(storeCatalog: true).test(.router) { client in
      let sessions = Sessions(secret: secret, secureCookies: false, store: records, accounts: AccountRecords(InMemoryRecordStorage()))
      var idle = Browser.console(client, cookie: "\(OperatorSessions.cookieName)=\(id.rawValue).\(sessions.mark(id))")
      let response = try await idle.get("/admin/surveys")
      #expect(response.status == .notFound)
    }
  }
}
