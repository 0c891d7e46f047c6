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
    "/admin/audit": .audit,
    "/admin/users": .desk, "/admin/users/{id}": .desk, "/admin/users/{id}/adjust": .desk,
    "/admin/users/{id}/answers/{survey}/approve": .desk, "/admin/users/{id}/answers/{survey}/confirm": .desk,
    "/admin/users/{id}/exchanges/{number}/retry": .desk, "/admin/users/{id}/exchanges/{number}/end": .desk,
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
      case "{id}": route.path.hasPrefix("/admin/users") ? someUser : route.path.hasPrefix("/admin/operators") ? operatorID : "food-001"
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
    ]
    let pages: Set<String> = [
      "/admin", "/admin/login", "/admin/login/code", "/admin/login/enrol", "/admin/login/recovery-codes", "/admin/operators",
      "/admin/surveys", "/admin/surveys/{id}", "/admin/surveys/{id}/edit", "/admin/surveys/{id}/preview",
      "/admin/surveys/{id}/responses.csv", "/admin/surveys/{id}/responses.jsonl", "/admin/audit", "/admin/users", "/admin/users/{id}",
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
    if role != .administrator {
      try await createOperator(
        email: address, password: AdminTests.password, role: role,
        operators: FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")),
        audit: FileRecordStorage(server.dataDirectory.appendingPathComponent("audit")), hasher: TestServer.hasher, now: noon - 60
      )
      try await AdminTests.enrol(address, in: server)
    }
    // The operator the operators' forms name (never the one signed in, whose reset would end
    // the session the test goes on with).
    try await createOperator(
      email: "victim@example.jp", password: AdminTests.password, role: .editor,
      operators: FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")),
      audit: FileRecordStorage(server.dataDirectory.appendingPathComponent("audit")), hasher: TestServer.hasher, now: noon - 60
    )
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
    try await createOperator(
      email: "support@example.jp", password: AdminTests.password, role: .support,
      operators: FileRecordStorage(server.dataDirectory.appendingPathComponent("operators")),
      audit: FileRecordStorage(server.dataDirectory.appendingPathComponent("audit")), hasher: TestServer.hasher, now: noon - 60
    )
    try await AdminTests.enrol("support@example.jp", in: server)
    try await server.application(storeCatalog: true).test(.router) { client in
      var support = try await AdminTests.signIn(client, server, as: "support@example.jp")
      let users = try await support.get("/admin/users").html
      #expect(users.contains(#"<a href="/admin/users" class="active" aria-current="page">ユーザー</a>"#))
      #expect(!users.contains("/admin/surveys") && !users.contains("/admin/audit") && !users.contains("/admin/operators"))
      #expect(users.contains("support@example.jp（サポート）"))
    }
  }
}
