import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// Sessions are records on the server behind a cookie that carries their id only.
struct SessionTests {
  @Test func aSessionsIdIsNeverItsUsersAndItIsSavedOnceTheVisitorReturns() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let cookie = try #require(browser.cookie?.split(separator: "=").last.map(String.init))
      #expect(try server.sessionFiles().isEmpty, "a first visit saves nothing")
      try await browser.get("/surveys")
      #expect(try server.sessionFiles() == ["\(cookie).json"])
      let users = try server.files().keys.filter { $0.hasSuffix(".json") }
      #expect(users.count == 1)
      #expect(!users.contains("\(cookie).json"), "the user's data is not named by the cookie")
    }
  }

  @Test func aGuestFromBeforeSessionRecordsKeepsTheirPointsUntilTheyRegister() async throws {
    let server = try TestServer()
    let legacy = UserID("0123456789abcdef0123456789abcdef")!
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(legacy, with: state)
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=\(legacy.rawValue)")
      let points = try await browser.get("/points")
      #expect(points.html.contains(#"<p class="big">60pt</p>"#))
      #expect(browser.cookie == "pointapp_session=\(legacy.rawValue)", "the cookie stays: a page open since still works")
      let csrf = try await browser.csrf(from: "/register")
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(browser.cookie != "pointapp_session=\(legacy.rawValue)", "a new session id at registration")
      #expect(try await browser.get("/points").html.contains(#"<p class="big">60pt</p>"#))

      // The old cookie, copied before: it has ended, and leads to nobody's points.
      var copied = Browser(client: client, cookie: "pointapp_session=\(legacy.rawValue)")
      #expect(try await copied.get("/points").html.contains(#"<p class="big">0pt</p>"#))
      #expect(copied.cookie != "pointapp_session=\(legacy.rawValue)")
    }
  }

  @Test func aSessionIdleForTooLongEndsAndItsVisitorIsNew() async throws {
    let server = try TestServer()
    let id = SessionID.random()
    let user = UserID.random()
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(user, with: state)
    let sessions = try JSONFileSessionStore(directory: server.dataDirectory.appendingPathComponent("sessions"))
    try await sessions.save(SessionRecord(user: user, lastSeen: noon - Sessions.guestIdleLimit + 60), as: id)
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=\(id.rawValue)")
      #expect(try await browser.get("/points").html.contains(#"<p class="big">60pt</p>"#), "still within the limit")
      let stale = SessionID.random()
      try await sessions.save(SessionRecord(user: user, lastSeen: noon - Sessions.guestIdleLimit - 60), as: stale)
      var late = Browser(client: client, cookie: "pointapp_session=\(stale.rawValue)")
      #expect(try await late.get("/points").html.contains(#"<p class="big">0pt</p>"#))
      #expect(late.cookie != "pointapp_session=\(stale.rawValue)")
    }
  }

  @Test func aFormFromAnEndedSessionIsRefusedAndChangesNothing() async throws {
    let server = try TestServer()
    let id = SessionID.random()
    let sessions = try JSONFileSessionStore(directory: server.dataDirectory.appendingPathComponent("sessions"))
    try await sessions.save(SessionRecord(user: nil, lastSeen: noon), as: id)
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=\(id.rawValue)")
      let csrf = Sessions(secret: secret, secureCookies: false, store: sessions, accounts: InMemoryAccountStore(), users: server.users)
        .csrfToken(for: Session(id: id, user: .random(), account: nil, isNew: false, setsCookie: false))
      let before = try server.files()
      let sent = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(sent.status == .forbidden)
      #expect(try server.files() == before)
    }
  }
}

extension TestServer {
  /// The names of the session records.
  func sessionFiles() throws -> Set<String> {
    let folder = dataDirectory.appendingPathComponent("sessions")
    return Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") })
  }
}

/// Behind HTTPS the cookie is `__Host-` prefixed, which a neighbour site cannot plant.
struct SecureSessionTests {
  static func sessionCookies(_ response: TestResponse) -> [String] {
    response.headers[values: .setCookie].filter { $0.contains("pointapp_session=") }
  }

  @Test func aPlainCookieIsTakenOnlyFromAGuestFromBeforeAndReplacedByThePrefixedOne() async throws {
    let server = try TestServer()
    let legacy = UserID("0123456789abcdef0123456789abcdef")!
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(legacy, with: state)
    try await server.application(secureCookies: true).test(.router) { client in
      var guest = Browser(client: client, cookie: "pointapp_session=\(legacy.rawValue)")
      let page = try await guest.get("/points")
      #expect(page.html.contains(#"<p class="big">60pt</p>"#))
      let renewed = Self.sessionCookies(page)
      #expect(renewed.count == 1 && renewed[0].hasPrefix("__Host-pointapp_session=\(legacy.rawValue);") && renewed[0].contains("Secure"))

      let planted = SessionID.random()
      var victim = Browser(client: client, cookie: "pointapp_session=\(planted.rawValue)")
      let fresh = try await victim.get("/points")
      #expect(fresh.html.contains(#"<p class="big">0pt</p>"#))
      let issued = Self.sessionCookies(fresh)
      #expect(issued.count == 1 && issued[0].hasPrefix("__Host-pointapp_session=") && !issued[0].contains(planted.rawValue))
      #expect(try server.sessionFiles().contains("\(planted.rawValue).json") == false, "a planted id is never taken up")
    }
  }
}
