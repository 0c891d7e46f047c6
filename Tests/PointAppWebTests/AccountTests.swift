import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Synchronization
import Testing

/// Accounts over HTTP: points that outlive a cookie, on any browser, and sessions that really end.
struct AccountTests {
  static let password = "correct horse battery"

  /// A guest who answered the sweets survey (60pt).
  static func guest(_ client: some TestClientProtocol) async throws -> (Browser, csrf: String) {
    var browser = Browser(client: client)
    try await browser.get("/surveys")
    let csrf = try await browser.csrf(from: "/surveys/sweets")
    let answered = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
    #expect(answered.headers[.location] == "/surveys/sweets/complete")
    return (browser, csrf)
  }

  static func balance(_ page: TestResponse) -> String? {
    guard let range = page.html.range(of: #"<p class="big">"#) else { return nil }
    return String(page.html[range.upperBound...].prefix { $0 != "<" })
  }

  @Test func registeringKeepsTheGuestsPointsUnderANewSessionId() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (browser, csrf) = try await Self.guest(client)
      let before = try #require(browser.cookie)
      let registered = try await browser.post("/register", form: "csrf=\(csrf)&email=Hanako%40Example.jp&password=correct+horse+battery")
      #expect(registered.status == .seeOther)
      #expect(registered.headers[.location] == "/points")
      #expect(browser.cookie != before, "a new session id at registration")
      let points = try await browser.get("/points")
      #expect(Self.balance(points) == "60pt")
      #expect(points.html.contains("登録しました。"))
      #expect(points.html.contains(#"<a class="who" href="/account" aria-label="アカウント（hanako@example.jp）">hanako@example.jp</a>"#))
      #expect(try await browser.get("/account").html.contains("hanako@example.jp"))
    }
  }

  @Test func refusedRegistrationsSayWhyKeepTheAddressAndMakeNoAccount() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (browser, csrf) = try await Self.guest(client)
      for (form, message) in [
        ("email=hanako%40example.jp&password=short", "パスワードは8文字以上にしてください。"),
        ("email=hanako%40example.jp&password=password123", "よく使われているパスワードです。"),
        ("email=hanako%40&password=correct+horse+battery", "メールアドレスの形式を確認してください。"),
      ] {
        let refused = try await browser.post("/register", form: "csrf=\(csrf)&\(form)")
        #expect(refused.headers[.location] == "/register")
        let page = try await browser.get("/register")
        #expect(page.html.contains(message), "\(form)")
        #expect(page.html.contains(#"value="hanako@"#), "the address is kept")
        #expect(!page.html.contains("correct horse") && !page.html.contains("short\""), "never the password")
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("accounts").path).isEmpty)
    }
  }

  @Test func anotherBrowserLogsInToTheSamePointsAndItsGuestIsPaidOnce() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (phone, phoneCSRF) = try await Self.guest(client)
      _ = try await phone.post("/register", form: "csrf=\(phoneCSRF)&email=hanako%40example.jp&password=correct+horse+battery")

      // The desktop's guest answered the same survey (paid there too) and the breakfast one.
      var (desktop, csrf) = try await Self.guest(client)
      _ = try await desktop.post(
        "/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4"
      )
      let before = try #require(desktop.cookie)
      let loggedIn = try await desktop.post("/login", form: "csrf=\(csrf)&email=HANAKO%40example.jp&password=correct+horse+battery")
      #expect(loggedIn.headers[.location] == "/points")
      #expect(desktop.cookie != before, "a new session id at login")
      let points = try await desktop.get("/points")
      #expect(Self.balance(points) == "100pt", "60 once, and the breakfast's 40")
      #expect(points.html.contains("ログインしました。ゲストで獲得した40pt（アンケート1件）を引き継ぎました。"))
      phoneCSRF = try await phone.csrf(from: "/account")
      #expect(Self.balance(try await phone.get("/points")) == "100pt", "the same points on the phone")
    }
  }

  @Test func aWrongPasswordAndAnUnknownAddressAreRefusedAlike() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (browser, csrf) = try await Self.guest(client)
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      var other = Browser(client: client)
      try await other.get("/login")
      let otherCSRF = try await other.csrf(from: "/login")
      var pages: [String] = []
      for email in ["hanako%40example.jp", "nobody%40example.jp"] {
        let refused = try await other.post("/login", form: "csrf=\(otherCSRF)&email=\(email)&password=wrong+password+here")
        #expect(refused.headers[.location] == "/login")
        pages.append(try await other.get("/login").html.replacingOccurrences(of: "nobody@", with: "hanako@"))
      }
      #expect(pages[0] == pages[1])
      #expect(pages[0].contains("メールアドレスまたはパスワードが正しくありません。"))
    }
  }

  @Test func theSixthFailureInARowIsRefusedWith429() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (browser, csrf) = try await Self.guest(client)
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      var attacker = Browser(client: client)
      try await attacker.get("/login")
      let token = try await attacker.csrf(from: "/login")
      for _ in 0..<5 {
        let refused = try await attacker.post("/login", form: "csrf=\(token)&email=hanako%40example.jp&password=guess+guess+guess")
        #expect(refused.status == .seeOther)
      }
      let sixth = try await attacker.post("/login", form: "csrf=\(token)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(sixth.status == .tooManyRequests, "refused even with the right password")
      #expect(sixth.html.contains("15分ほどたってから"))
    }
  }

  @Test func afterLogoutACopiedCookieIsAGuestAndLoggingOutEverywhereEndsEverySession() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (phone, csrf) = try await Self.guest(client)
      _ = try await phone.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      let copied = try #require(phone.cookie)
      let phoneCSRF = try await phone.csrf(from: "/account")
      let out = try await phone.post("/logout", form: "csrf=\(phoneCSRF)")
      #expect(out.headers[.location] == "/surveys")
      #expect(phone.cookie != copied)
      #expect(Self.balance(try await phone.get("/points")) == "0pt", "a new guest")
      var thief = Browser(client: client, cookie: copied)
      #expect(Self.balance(try await thief.get("/points")) == "0pt", "the copied cookie is dead")

      var desktop = Browser(client: client)
      try await desktop.get("/login")
      let desktopCSRF = try await desktop.csrf(from: "/login")
      _ = try await desktop.post("/login", form: "csrf=\(desktopCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      var laptop = Browser(client: client)
      try await laptop.get("/login")
      let laptopCSRF = try await laptop.csrf(from: "/login")
      _ = try await laptop.post("/login", form: "csrf=\(laptopCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(Self.balance(try await laptop.get("/points")) == "60pt")
      let token = try await desktop.csrf(from: "/account")
      _ = try await desktop.post("/logout/everywhere", form: "csrf=\(token)")
      #expect(Self.balance(try await laptop.get("/points")) == "0pt", "the laptop is a guest again")
      #expect(try await laptop.get("/account").headers[.location] == "/login")
    }
  }

  @Test(arguments: [false, true])
  func aClientMayTryTwentyLoginsAMinuteWhateverTheAddresses(behindProxy: Bool) async throws {
    let server = try TestServer()
    // Through the socket, so that the peer's address is known. Each attempt names another client
    // in X-Forwarded-For: believed from a trusted proxy only.
    try await server.application(trustedProxies: behindProxy ? ["127.0.0.1"] : []).test(.live) { client in
      var browser = Browser(client: client)
      try await browser.get("/login")
      let csrf = try await browser.csrf(from: "/login")
      var statuses: [HTTPResponse.Status] = []
      for number in 0..<21 {
        let forwarded: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.\(number)"]
        statuses.append(try await browser.post("/login", form: "csrf=\(csrf)&email=user\(number)%40example.jp&password=guess+guess", headers: forwarded).status)
      }
      #expect(statuses.dropLast().allSatisfy { $0 == .seeOther })
      #expect(statuses.last == (behindProxy ? .seeOther : .tooManyRequests))
    }
  }

  /// Where many members share an address (a carrier's NAT) the server may allow it more: the
  /// limit set is the one counted, for registrations as for logins.
  @Test func aClientsLimitIsTheOneConfigured() async throws {
    let server = try TestServer()
    try await server.application(loginsPerMinute: 3).test(.live) { client in
      var statuses: [HTTPResponse.Status] = []
      for number in 0..<4 {
        var (browser, csrf) = try await Self.guest(client)
        let form = "csrf=\(csrf)&email=member\(number)%40example.jp&password=correct+horse+battery"
        statuses.append(try await browser.post(number == 0 ? "/login" : "/register", form: form).status)
      }
      #expect(statuses == [.seeOther, .seeOther, .seeOther, .tooManyRequests])
    }
  }

  /// A login's password is checked before the user's lock: while its bcrypt is held, the same
  /// browser's answer in another tab (an update of the same user) is saved at once. It used to
  /// wait for the login, which held the user (on PostgreSQL a transaction and a connection) for
  /// the whole of its bcrypt.
  @Test func aLoginsPasswordCheckHoldsNoUser() async throws {
    let server = try TestServer()
    let (entered, entering) = AsyncStream<Void>.makeStream()
    let (release, releasing) = AsyncStream<Void>.makeStream()
    let held = Mutex(false)
    let hasher = PasswordHasher(cost: 4) {
      guard held.withLock({ $0 }) else { return }
      entering.yield()
      for await _ in release { break }
    }
    try await server.application(hasher: hasher).test(.router) { client in
      var (owner, csrf) = try await Self.guest(client)
      _ = try await owner.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      _ = try await owner.post("/logout", form: "csrf=\(try await owner.csrf(from: "/account"))")

      var (laptop, token) = try await Self.guest(client)
      let otherTab = laptop
      held.withLock { $0 = true }
      let login = Task { [laptop] in
        var laptop = laptop
        return try await laptop.post("/login", form: "csrf=\(token)&email=hanako%40example.jp&password=correct+horse+battery")
      }
      for await _ in entered { break }
      // bcrypt is held: the answer goes through meanwhile (given 2 s before bcrypt is let go).
      let answered = Mutex(false)
      let answer = Task { [otherTab] in
        var otherTab = otherTab
        defer { answered.withLock { $0 = true } }
        return try await otherTab.post("/surveys/breakfast/answers", form: "csrf=\(token)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4")
      }
      for _ in 0..<200 where !answered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
      #expect(answered.withLock { $0 }, "saved while the login's password was being checked")
      held.withLock { $0 = false }
      releasing.yield()
      #expect(try await answer.value.headers[.location] == "/surveys/breakfast/complete")
      let loggedIn = try await login.value
      #expect(loggedIn.headers[.location] == "/points")
      laptop.cookie = loggedIn.headers[values: .setCookie].first { $0.hasPrefix("pointapp_session=") }.map { String($0.prefix { $0 != ";" }) }
      let balance = Self.balance(try await laptop.get("/points"))
      #expect(balance == "100pt", "sweets once and breakfast, answered meanwhile: \(balance ?? "no balance")")
    }
  }

  /// Found by probing: members' logins from a busy shared address used up the address's budget
  /// for operators too. Each side has its own.
  @Test func membersLoginsFromAnAddressLeaveItsOperatorsTheirOwnBudget() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.live) { client in
      var browser = Browser(client: client)
      let csrf = try await browser.csrf(from: "/login")
      var statuses: [HTTPResponse.Status] = []
      for number in 0..<21 {
        statuses.append(try await browser.post("/login", form: "csrf=\(csrf)&email=user\(number)%40example.jp&password=guess+guess").status)
      }
      #expect(statuses.last == .tooManyRequests, "the members' budget of the address is spent")
      _ = try await AdminTests.signIn(client, server)
    }
  }

  @Test func aGuestLoggingInToTwoAccountsAtOnceMovesIntoOneOnly() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      for email in ["x", "y"] {
        var (owner, csrf) = try await Self.guest(client)
        _ = try await owner.post("/register", form: "csrf=\(csrf)&email=\(email)%40example.jp&password=correct+horse+battery")
      }
      var (visitor, csrf) = try await Self.guest(client)  // sweets, which both accounts have
      _ = try await visitor.post(
        "/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4"
      )  // and 40pt that move
      let attempts = ["x", "y", "x"].map { (visitor, $0) }
      let token = csrf
      let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
        for (browser, email) in attempts {
          group.addTask {
            var browser = browser
            return try await browser.post("/login", form: "csrf=\(token)&email=\(email)%40example.jp&password=correct+horse+battery").headers[.location]
          }
        }
        return try await group.reduce(into: [String?]()) { $0.append($1) }
      }
      #expect(outcomes.filter { $0 == "/points" }.count == 1, "\(outcomes)")
      var total = 0
      for email in ["x", "y"] {
        var reader = Browser(client: client)
        try await reader.get("/login")
        let token = try await reader.csrf(from: "/login")
        _ = try await reader.post("/login", form: "csrf=\(token)&email=\(email)%40example.jp&password=correct+horse+battery")
        total += Int(try #require(Self.balance(try await reader.get("/points"))).dropLast(2)) ?? -1
      }
      #expect(total == 60 + 60 + 40, "each owner's 60, and the guest's breakfast once")
    }
  }

  @Test func twentySimultaneousRegistrationsOfOneAddressMakeOneAccount() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var guests: [(Browser, String)] = []
      for _ in 0..<20 { guests.append(try await Self.guest(client)) }
      let statuses = try await withThrowingTaskGroup(of: String?.self) { group in
        for (browser, csrf) in guests {
          group.addTask {
            var browser = browser
            return try await browser.post("/register", form: "csrf=\(csrf)&email=same%40example.jp&password=correct+horse+battery").headers[.location]
          }
        }
        return try await group.reduce(into: [String?]()) { $0.append($1) }
      }
      #expect(statuses.filter { $0 == "/points" }.count == 1)
      #expect(statuses.filter { $0 == "/register" }.count == 19)
      #expect(try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("accounts").path).filter { $0.hasSuffix(".json") }.count == 1)
    }
  }

  @Test func signInFormsNeedTheSessionsToken() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/login")
      try await browser.get("/login")
      let forged = try await browser.post("/login", form: "csrf=0000&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(forged.status == .forbidden)
      let foreign = try await browser.post(
        "/register", form: "csrf=\(try await browser.csrf(from: "/register"))&email=a%40example.jp&password=correct+horse+battery",
        headers: [.origin: "https://evil.example"]
      )
      #expect(foreign.status == .forbidden)
    }
  }
}

/// Points leave only from an account, with its password typed in the last 10 minutes.
struct ExchangePasswordTests {
  @Test func anExchangeAsksForThePasswordAgainAfterTenMinutes() async throws {
    let server = try TestServer()
    let user = UserID.random()
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([
      Survey(id: SurveyID("bonanza"), title: "", description: "", category: .food, questions: [], reward: 3_500,
             estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil),
    ])
    try await server.users.replace(user, with: state)
    let accounts = AccountRecords(try FileRecordStorage(server.dataDirectory.appendingPathComponent("accounts")))
    var account = Account(email: "hanako@example.jp", passwordHash: try await TestServer.hasher.hash("correct horse battery"), user: user, created: noon)
    account.verifiedAt = noon - 3600
    #expect(try await accounts.create(account, as: account.id))
    let sessions = try server.sessionRecords()
    let id = SessionID.random()
    #expect(try await sessions.create(
      SessionRecord(user: user, account: account.id, lastSeen: noon, passwordConfirmedAt: noon - Exchange.passwordGrace), as: id
    ))
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: TestServer.cookie(for: id))
      let confirmation = try await browser.get("/exchange/digital-gift-300")
      #expect(confirmation.html.contains(#"<input type="password" id="password" name="password""#))
      let csrf = try await browser.csrf(from: "/exchange/digital-gift-300")
      for (password, message) in [("", "確認のため、パスワードを入力してください。"), ("wrong+guess+here", "パスワードが正しくありません。")] {
        let refused = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=1&password=\(password)")
        #expect(refused.headers[.location] == "/exchange")
        #expect(try await browser.get("/exchange").html.contains(message))
      }
      #expect(AccountTests.balance(try await browser.get("/points")) == "3,500pt")
      let sent = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=1&password=correct+horse+battery")
      #expect(sent.headers[.location] == "/exchange/history/1")
      #expect(AccountTests.balance(try await browser.get("/points")) == "500pt")
      // Typed just now: the next confirmation does not ask.
      #expect(!(try await browser.get("/exchange/digital-gift-300").html.contains(#"type="password""#)))
    }
  }
}

struct PasswordChangeHTTPTests {
  @Test func aNewPasswordEndsTheOtherSessionsAndTheOldOneNoLongerWorks() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var (phone, csrf) = try await AccountTests.guest(client)
      _ = try await phone.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      var desktop = Browser(client: client)
      try await desktop.get("/login")
      let desktopCSRF = try await desktop.csrf(from: "/login")
      _ = try await desktop.post("/login", form: "csrf=\(desktopCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(AccountTests.balance(try await desktop.get("/points")) == "60pt")

      let token = try await phone.csrf(from: "/account")
      let wrong = try await phone.post("/account/password", form: "csrf=\(token)&current=wrong+guess+here&new=a+brand+new+passphrase")
      #expect(wrong.headers[.location] == "/account")
      #expect(try await phone.get("/account").html.contains("パスワードが正しくありません。"))
      let before = try #require(phone.cookie)
      let changed = try await phone.post("/account/password", form: "csrf=\(token)&current=correct+horse+battery&new=a+brand+new+passphrase")
      #expect(changed.headers[.location] == "/account")
      #expect(phone.cookie != before, "a new session id")
      #expect(try await phone.get("/account").html.contains("パスワードを変更しました。"))
      #expect(AccountTests.balance(try await desktop.get("/points")) == "0pt", "the desktop is logged out")

      var laptop = Browser(client: client)
      try await laptop.get("/login")
      let laptopCSRF = try await laptop.csrf(from: "/login")
      _ = try await laptop.post("/login", form: "csrf=\(laptopCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(AccountTests.balance(try await laptop.get("/points")) == "0pt", "the old password no longer works")
      _ = try await laptop.post("/login", form: "csrf=\(laptopCSRF)&email=hanako%40example.jp&password=a+brand+new+passphrase")
      #expect(AccountTests.balance(try await laptop.get("/points")) == "60pt")
    }
  }
}
