import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PointApp
import SnapshotTesting
import Testing

@testable import PointAppWeb

/// The console's trust over HTTP: every route as each role gets it, the second factor enrolled
/// and given through the pages, operators managed by a 管理者.
struct ConsoleTrustWebTests {
  /// Where each route of the console belongs; a route the router has and this table lacks fails
  /// the test, so a new one is classified before it ships. `nil`: open to every operator
  /// (signing in, the second factor, signing out, the console's first page).
  static let areas: [String: ConsoleArea?] = [
    "/admin": nil, "/admin/login": nil, "/admin/login/code": nil, "/admin/login/enrol": nil,
    "/admin/login/recovery-codes": nil, "/admin/logout": nil,
    "/admin/surveys": .surveys, "/admin/surveys/{id}": .surveys,
    "/admin/surveys/new": .catalog, "/admin/surveys/{id}/edit": .catalog, "/admin/surveys/{id}/preview": .catalog,
    "/admin/surveys/{id}/publish": .catalog, "/admin/surveys/{id}/duplicate": .catalog, "/admin/surveys/{id}/close": .catalog,
    "/admin/surveys/{id}/responses.csv": .exports, "/admin/surveys/{id}/responses.jsonl": .exports,
    "/admin/surveys/{id}/export": .exports, "/admin/surveys/{id}/responses.csv.manifest.json": .exports,
    "/admin/surveys/{id}/responses.jsonl.manifest.json": .exports,
    "/admin/audit": .audit,
    "/admin/users": .desk, "/admin/users/{id}": .desk, "/admin/users/{id}/adjust": .desk,
    "/admin/users/{id}/answers/{survey}/approve": .desk, "/admin/users/{id}/answers/{survey}/confirm": .desk,
    "/admin/users/{id}/exchanges/{number}/retry": .desk, "/admin/users/{id}/exchanges/{number}/end": .desk,
    "/admin/adjustments/{id}/approve": .desk, "/admin/adjustments/{id}/refuse": .desk,
    "/admin/operators": .operators, "/admin/operators/{id}/role": .operators, "/admin/operators/{id}/disable": .operators,
    "/admin/operators/{id}/reset-second-factor": .operators,
  ]

  /// What each role reaches, as the issue designs it (not read from the code under test).
  static let reaches: [OperatorRole: Set<ConsoleArea>] = [
    .administrator: [.surveys, .catalog, .exports, .desk, .audit, .operators],
    .editor: [.surveys, .catalog], .support: [.desk], .analyst: [.surveys, .exports],
  ]

  static let someUser = "0123456789abcdef0123456789abcdef"

  /// A route's path with its parameters filled, and a form that decodes (so that a refusal is
  /// the role's, never a 400).
  static func request(_ route: (method: String, path: String), csrf: String, operatorID: String) -> (path: String, body: String) {
    let path = route.path.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
      switch part {
      case "{id}":
        route.path.hasPrefix("/admin/users") ? someUser : route.path.hasPrefix("/admin/operators") ? operatorID
          : route.path.hasPrefix("/admin/adjustments") ? "00000000-0000-0000-0000-000000000001" : "food-001"
      case "{survey}": "food-001"
      case "{number}": "1"
      default: String(part)
      }
    }.joined(separator: "/")
    let fields: [(String, String)] =
      switch route.path {
      case "/admin/surveys/{id}/edit": SurveyEditorTests.fields(csrf: csrf, intent: "save")
      case "/admin/users/{id}/adjust": [("csrf", csrf), ("id", UUID().uuidString), ("points", "1"), ("reason", "確認")]
      case "/admin/operators": [("csrf", csrf), ("email", "new@example.jp"), ("role", "analyst")]
      case "/admin/operators/{id}/role": [("csrf", csrf), ("role", "analyst")]
      case "/admin/login": [("csrf", csrf), ("email", "x@example.jp"), ("password", "x")]
      case "/admin/login/code", "/admin/login/enrol": [("csrf", csrf), ("code", "000000")]
      default: [("csrf", csrf)]
      }
    return (path, SurveyEditorTests.encode(fields))
  }

  /// Whether a GET or POST route is one the console serves (pages are GET, forms POST; a page
  /// whose form posts to it both).
  static func takes(_ route: (method: String, path: String)) -> Bool {
    let forms: Set<String> = [
      "/admin/login", "/admin/login/code", "/admin/login/enrol", "/admin/login/recovery-codes", "/admin/logout", "/admin/operators",
      "/admin/surveys/new", "/admin/surveys/{id}/edit", "/admin/surveys/{id}/publish", "/admin/surveys/{id}/duplicate",
      "/admin/surveys/{id}/close", "/admin/users/{id}/adjust", "/admin/users/{id}/answers/{survey}/approve",
      "/admin/users/{id}/answers/{survey}/confirm", "/admin/users/{id}/exchanges/{number}/retry", "/admin/users/{id}/exchanges/{number}/end",
      "/admin/operators/{id}/role", "/admin/operators/{id}/disable", "/admin/operators/{id}/reset-second-factor",
      "/admin/adjustments/{id}/approve", "/admin/adjustments/{id}/refuse",
    ]
    let pages: Set<String> = [
      "/admin", "/admin/login", "/admin/login/code", "/admin/login/enrol", "/admin/login/recovery-codes", "/admin/operators",
      "/admin/surveys", "/admin/surveys/{id}", "/admin/surveys/{id}/edit", "/admin/surveys/{id}/preview",
      "/admin/surveys/{id}/responses.csv", "/admin/surveys/{id}/responses.jsonl", "/admin/audit", "/admin/users", "/admin/users/{id}",
      "/admin/surveys/{id}/export", "/admin/surveys/{id}/responses.csv.manifest.json", "/admin/surveys/{id}/responses.jsonl.manifest.json",
    ]
    return route.method == "GET" ? pages.contains(route.path) : forms.contains(route.path)
  }

  /// For each role, every route of the router: a part of the role answers as it does (never 403
  /// or 404 for being there), any other part 403 with the console's Japanese page, and nothing
  /// changes (the audit log has no entry of it).
  @Test(arguments: OperatorRole.allCases)
  func everyRouteAnswersEachRoleAsDesigned(role: OperatorRole) async throws {
    let server = try await AdminTests.server()
    let address = "\(role.rawValue)@example.jp"
    if role != .administrator { try await AdminTests.addOperator(address, role: role, enrolled: true, to: server) }
    // The operator the operators' forms name (never the one signed in, whose reset would end
    // the session the test goes on with).
    try await AdminTests.addOperator("victim@example.jp", role: .editor, enrolled: false, to: server)
    let routes = RouteList()
    try await server.application(storeCatalog: true, routes: routes).test(.router) { client in
      let console = try await AdminTests.signIn(client, server, as: role == .administrator ? AdminTests.email : address)
      let admin = routes.routes.withLock { $0 }.filter { $0.path.hasPrefix("/admin") }
      #expect(admin.count >= 25, "\(admin.count) routes")
      let home = try await console.client.execute(uri: "/admin", method: .get, headers: [.cookie: console.cookie!])
      let csrf = try await {
        var browser = console
        return try browser.csrf(in: try await browser.get(home.headers[.location]!))
      }()
      let operatorID = OperatorID(email: "victim@example.jp").rawValue
      for route in admin where !["/admin/logout", "/admin/login"].contains(route.path) {
        let known = Self.areas.keys.contains(route.path)
        #expect(known, "\(route.path) is in no part of the console: add it to the table")
        let area = Self.areas[route.path] ?? nil
        let (path, body) = Self.request(route, csrf: csrf, operatorID: operatorID)
        let audit = try await AuditLog(FileRecordStorage(server.dataDirectory.appendingPathComponent("audit"))).page(after: nil, limit: 1)
        var browser = console
        let response = try await browser.request(path, method: .init(route.method)!, headers: [.contentType: "application/x-www-form-urlencoded"], body: body)
        if response.status == .methodNotAllowed {
          // A method the path does not take: the same for every role.
          #expect(!["GET", "POST"].contains(route.method) || !Self.takes(route), "\(role) \(route.method) \(path)")
        } else if let area, !Self.reaches[role]!.contains(area) {
          #expect(response.status == .forbidden, "\(role) \(route.method) \(path)")
          #expect(response.html.contains("この画面を開く権限がありません"), "\(role) \(route.method) \(path)")
          let after = try await AuditLog(FileRecordStorage(server.dataDirectory.appendingPathComponent("audit"))).page(after: nil, limit: 1)
          #expect(after == audit, "nothing done: \(role) \(route.method) \(path)")
        } else {
          #expect(response.status != .forbidden && response.status != .notFound || path.contains(Self.someUser),
                  "\(role) \(route.method) \(path): \(response.status)")
        }
      }
    }
  }

  /// The menu shows a role its own parts only.
  @Test func theMenuShowsTheRolesPartsOnly() async throws {
    let server = try await AdminTests.server()
    try await AdminTests.addOperator("support@example.jp", role: .support, enrolled: true, to: server)
    try await server.application(storeCatalog: true).test(.router) { client in
      var support = try await AdminTests.signIn(client, server, as: "support@example.jp")
      let users = try await support.get("/admin/users").html
      #expect(users.contains(#"<a href="/admin/users" class="active" aria-current="page">ユーザー</a>"#))
      #expect(!users.contains("/admin/surveys") && !users.contains("/admin/audit") && !users.contains("/admin/operators"))
      #expect(users.contains("support@example.jp（サポート）"))
    }
  }

  /// The secret an enrolment page shows (its grouped `<code>`), as the bytes an app takes.
  static func secret(on page: String) throws -> Data {
    let marker = #"<p class="secret"><code>"#
    let start = try #require(page.range(of: marker)).upperBound
    let grouped = String(page[start...].prefix { $0 != "<" })
    return try #require(Base32.decode(grouped))
  }

  /// A new operator's first sign-in: the password a 管理者 was shown once, then the enrolment page
  /// (QR code, the secret, the URI), a code of that secret, the recovery codes once; the same
  /// code again is refused; a recovery code signs in once.
  @Test func aNewOperatorEnrolsAnAuthenticatorAtTheFirstSignIn() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var admin = try await AdminTests.signIn(client, server)
      let csrf = try admin.csrf(in: try await admin.get("/admin/operators"))
      let added = try await admin.post("/admin/operators", form: "csrf=\(csrf)&email=hanako%40example.jp&role=support")
      #expect(added.headers[.location] == "/admin/operators?done=added")
      let shown = try await admin.get("/admin/operators?done=added").html
      #expect(shown.contains("hanako@example.jp") && shown.contains("初期パスワード"))
      let marker = #"<p class="secret"><code>"#
      let password = String(shown[try #require(shown.range(of: marker)).upperBound...].prefix { $0 != "<" })
      #expect(password.count == 16)
      #expect(!(try await admin.get("/admin/operators").html.contains(password)), "shown once")

      var hanako = Browser.console(client)
      let token = try hanako.csrf(in: try await hanako.get("/admin/login"))
      let signedIn = try await hanako.post("/admin/login", form: "csrf=\(token)&email=hanako%40example.jp&password=\(password)")
      #expect(signedIn.headers[.location] == "/admin/login/code")
      #expect(try await hanako.get("/admin/users").headers[.location] == "/admin/login/code", "nothing before the second factor")
      #expect(try await hanako.get("/admin/login/code").headers[.location] == "/admin/login/enrol")
      let page = try await hanako.get("/admin/login/enrol")
      #expect(page.status == .ok)
      #expect(page.html.contains(#"<img src="data:image/svg+xml;base64,"#))
      #expect(page.html.contains("otpauth://totp/PointApp:hanako%40example.jp?secret="))
      let secret = try Self.secret(on: page.html)
      #expect(try Self.secret(on: try await hanako.get("/admin/login/enrol").html) == secret, "the same secret until enrolled")
      let enrolToken = try hanako.csrf(in: page)
      let wrong = try await hanako.post("/admin/login/enrol", form: "csrf=\(enrolToken)&code=000000")
      #expect(wrong.headers[.location] == "/admin/login/enrol?refused=1")
      let step = TOTP.step(at: noon)
      let code = TOTP(secret: secret).code(at: step)
      let enrolled = try await hanako.post("/admin/login/enrol", form: "csrf=\(enrolToken)&code=\(code)")
      #expect(enrolled.headers[.location] == "/admin/login/recovery-codes")
      let codesPage = try await hanako.get("/admin/login/recovery-codes").html
      let codes = codesPage.matches(of: /<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code><\/li>/).map { String($0.output.1) }
      #expect(codes.count == 10 && Set(codes).count == 10)
      #expect(!(try await hanako.get("/admin/login/recovery-codes").html.contains(codes[0])), "shown once")
      #expect(!(try await hanako.get("/admin/login/enrol").html.contains(Base32.encode(secret).prefix(8))), "the secret is never shown again")
      #expect(try await hanako.get("/admin/users").status == .ok)

      // Signed out, then in again: the code just used is refused; the next one is taken; a
      // recovery code once.
      func signIn(with code: String) async throws -> TestResponse {
        var browser = Browser.console(client)
        let token = try browser.csrf(in: try await browser.get("/admin/login"))
        _ = try await browser.post("/admin/login", form: "csrf=\(token)&email=hanako%40example.jp&password=\(password)")
        let codeToken = try browser.csrf(in: try await browser.get("/admin/login/code"))
        return try await browser.post("/admin/login/code", form: "csrf=\(codeToken)&code=\(code)")
      }
      #expect(try await signIn(with: code).headers[.location] == "/admin/login/code?refused=1", "a code once taken is refused")
      #expect(try await signIn(with: TOTP(secret: secret).code(at: step + 1)).headers[.location] == "/admin/users")
      #expect(try await signIn(with: codes[3].uppercased()).headers[.location] == "/admin/users", "a recovery code, as typed")
      #expect(try await signIn(with: codes[3]).headers[.location] == "/admin/login/code?refused=1", "once")
    }
    let entries = try await AuditLog(FileRecordStorage(server.dataDirectory.appendingPathComponent("audit"))).page(after: nil, limit: 20).entries
    #expect(entries.contains { $0.action == .secondFactorEnrolled && $0.operatorEmail == "hanako@example.jp" })
    #expect(entries.filter { $0.action == .signInFailed && $0.operatorEmail == "hanako@example.jp" }.count == 3)
    #expect(entries.contains { $0.action == .operatorAdded && $0.subject == "hanako@example.jp" && $0.after == "サポート" })
  }

  /// A 管理者 changes a role (it applies at the next request), disables an operator (their
  /// session ends at once), resets a second factor (they enrol again), and is refused
  /// disabling themselves or leaving no 管理者.
  @Test func aManagerChangesRolesDisablesAndResetsOperators() async throws {
    let server = try await AdminTests.server()
    try await AdminTests.addOperator("taro@example.jp", role: .editor, enrolled: true, to: server)
    let taroID = OperatorID(email: "taro@example.jp").rawValue
    let adminID = OperatorID(email: AdminTests.email).rawValue
    try await server.application(storeCatalog: true).test(.router) { client in
      var admin = try await AdminTests.signIn(client, server)
      var taro = try await AdminTests.signIn(client, server, as: "taro@example.jp")
      #expect(try await taro.get("/admin/users").status == .forbidden)
      let csrf = try admin.csrf(in: try await admin.get("/admin/operators"))
      #expect(try await admin.post("/admin/operators/\(taroID)/role", form: "csrf=\(csrf)&role=support").headers[.location] == "/admin/operators?done=roleChanged")
      #expect(try await taro.get("/admin/users").status == .ok, "the new role at the next request")
      #expect(try await taro.get("/admin/surveys").status == .forbidden)
      #expect(try await admin.post("/admin/operators/\(taroID)/role", form: "csrf=\(csrf)&role=boss").status == .badRequest)

      #expect(try await admin.post("/admin/operators/\(adminID)/disable", form: "csrf=\(csrf)").headers[.location] == "/admin/operators?refused=yourself")
      #expect(try await admin.post("/admin/operators/\(adminID)/role", form: "csrf=\(csrf)&role=analyst").headers[.location] == "/admin/operators?refused=lastAdministrator")
      #expect(try await admin.post("/admin/operators/\(taroID)/disable", form: "csrf=\(csrf)").headers[.location] == "/admin/operators?done=disabled")
      #expect(try await taro.get("/admin/users").status == .notFound, "signed out at once")
      var again = Browser.console(client)
      let token = try again.csrf(in: try await again.get("/admin/login"))
      #expect(try await again.post("/admin/login", form: "csrf=\(token)&email=taro%40example.jp&password=correct+horse+battery").headers[.location] == "/admin/login?refused=1")
      let list = try await admin.get("/admin/operators").html
      #expect(list.contains("taro@example.jp") && list.contains("無効"))

      #expect(try await admin.post("/admin/operators/\(adminID)/reset-second-factor", form: "csrf=\(csrf)").headers[.location] == "/admin/operators?done=secondFactorReset")
      #expect(try await admin.get("/admin/operators").status == .notFound, "their own reset signed them out")
      var fresh = Browser.console(client)
      let freshToken = try fresh.csrf(in: try await fresh.get("/admin/login"))
      _ = try await fresh.post("/admin/login", form: "csrf=\(freshToken)&email=ops%40example.jp&password=correct+horse+battery")
      #expect(try await fresh.get("/admin/login/code").headers[.location] == "/admin/login/enrol", "enrolled anew")
    }
    let actions = try await AuditLog(FileRecordStorage(server.dataDirectory.appendingPathComponent("audit"))).page(after: nil, limit: 30).entries.map(\.action)
    #expect(actions.contains(.roleChanged) && actions.contains(.operatorDisabled) && actions.contains(.secondFactorReset))
  }

  /// Fifteen minutes after the second factor, an export and `/admin/operators` ask for it again
  /// and lead back once it is given; the other pages do not.
  @Test func exportsAndOperatorsAskForTheSecondFactorAgain() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var admin = try await AdminTests.signIn(client, server)
      let id = try #require(admin.cookie?.split(separator: "=").last?.split(separator: ".").first.map(String.init).flatMap(SessionID.init))
      try await server.sessionRecords().modify(id) { record in
        var record = record!
        record.secondFactorAt = noon - 16 * 60
        return (record, ())
      }
      #expect(try await admin.get("/admin/surveys").status == .ok)
      let export = try await admin.get("/admin/surveys/food-001/responses.csv?outcome=")
      #expect(export.headers[.location] == "/admin/login/code?next=/admin/surveys/food-001/responses.csv%3Foutcome%3D")
      #expect(try await admin.get("/admin/operators").headers[.location] == "/admin/login/code?next=/admin/operators")
      let page = try await admin.get("/admin/login/code?next=/admin/operators")
      #expect(page.html.contains("もう一度本人確認") && page.html.contains(#"name="next" value="/admin/operators""#))
      let given = try await admin.post("/admin/login/code", form: "csrf=\(try admin.csrf(in: page))&code=\(AdminTests.nextCode(server))&next=%2Fadmin%2Foperators")
      #expect(given.headers[.location] == "/admin/operators")
      #expect(try await admin.get("/admin/operators").status == .ok)
      let elsewhere = try await admin.post("/admin/login/code", form: "csrf=\(try admin.csrf(in: page))&code=\(AdminTests.nextCode(server))&next=%2F%2Fevil.example")
      #expect(elsewhere.headers[.location] == "/admin/surveys", "never away from the console")
    }
  }
}
