import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Synchronization
import Testing

/// Sessions are records on the server behind a cookie that carries their id only.
struct SessionTests {
  /// Ids, keys and secrets take their bytes eight at a time from the system's generator: as many
  /// as asked, every one of them drawn (a thousand ids, all different, every hex digit in each place).
  @Test func randomBytesAreAsManyAsAskedAndAllDrawn() {
    for count in [4, 16, 20, 32] { #expect(randomBytes(count).count == count) }
    let ids = (0..<1_000).map { _ in SessionID.random().rawValue }
    #expect(Set(ids).count == ids.count)
    #expect(ids.allSatisfy { $0.prefix(16) != $0.suffix(16) }, "each eight bytes drawn anew")
    for place in [0, 15, 16, 31] {
      #expect(Set(ids.map { Array($0.utf8)[place] }).count == 16, "every digit turns up at place \(place)")
    }
  }

  @Test func aSessionsIdIsNeverItsUsersAndItIsSavedOnceTheVisitorReturns() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let cookie = try #require(browser.sessionID)
      #expect(try server.sessionFiles().isEmpty, "a first visit saves nothing")
      try await browser.get("/surveys")
      #expect(try server.sessionFiles() == ["\(cookie).json"])
      let users = try server.files().keys.filter { $0.hasSuffix(".json") }
      #expect(users.count == 1)
      #expect(!users.contains("\(cookie).json"), "the user's data is not named by the cookie")
    }
  }

  /// Two processes starting on a new data folder: both read the key one of them made (each
  /// keeping its own, found by running two, refused the other's cookies).
  @Test func processesStartingTogetherShareOneSessionKey() async throws {
    let url = scratch("key")
    let keys = try await withThrowingTaskGroup(of: Data.self) { group in
      for _ in 0..<8 { group.addTask { try await Sessions.secret(in: FileBackend(url)) } }
      return try await group.reduce(into: Set<Data>()) { $0.insert($1) }
    }
    #expect(keys.count == 1 && keys.first?.count == 32)
    #expect(try await Sessions.secret(in: FileBackend(url)) == keys.first, "read again at the next start")
  }

  /// Tried as a stranger would, with what an operator's screen, a log or the data folder shows:
  /// a user's id (in `/admin/users/<id>` and the audit log), the name of their session's record,
  /// that name with a made-up mark. Each is a new visitor with nothing, and none is ever written.
  @Test func aCookieTheServerDidNotIssueIsANewVisitorWhateverItNames() async throws {
    let server = try TestServer()
    let user = UserID("0123456789abcdef0123456789abcdef")!
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(user, with: state)
    let session = SessionID.random()
    #expect(try await server.sessionRecords().create(SessionRecord(user: user, lastSeen: noon), as: session))
    let before = try server.sessionFiles()
    try await server.application().test(.router) { client async throws in
      for value in [user.rawValue, session.rawValue, "\(session.rawValue).0123456789abcdef", "\(user.rawValue).", "\(session.rawValue)."] {
        var stranger = Browser(client: client, cookie: "pointapp_session=\(value)")
        #expect(AccountTests.balance(try await stranger.get("/points")) == "0pt", "\(value) is nobody's")
        #expect(stranger.sessionID != user.rawValue && stranger.sessionID != session.rawValue)
      }
      #expect(try server.sessionFiles() == before, "nothing a stranger sent became a record")
      var owner = Browser(client: client, cookie: TestServer.cookie(for: session))
      #expect(AccountTests.balance(try await owner.get("/points")) == "60pt", "the cookie the server issued still leads to its user")
    }
  }

  @Test func aSessionIdleForTooLongEndsAndItsVisitorIsNew() async throws {
    let server = try TestServer()
    let id = SessionID.random()
    let user = UserID.random()
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(user, with: state)
    let sessions = try server.sessionRecords()
    #expect(try await sessions.create(SessionRecord(user: user, lastSeen: noon - Sessions.guestIdleLimit + 60), as: id))
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: TestServer.cookie(for: id))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">60pt</p>"#), "still within the limit")
      let stale = SessionID.random()
      let made = try await sessions.create(SessionRecord(user: user, lastSeen: noon - Sessions.guestIdleLimit - 60), as: stale)
      #expect(made)
      var late = Browser(client: client, cookie: TestServer.cookie(for: stale))
      #expect(try await late.get("/points").html.contains(#"<p class="big">0pt</p>"#))
      #expect(late.sessionID != stale.rawValue)
    }
  }

  @Test func aFormFromAnEndedSessionIsRefusedAndChangesNothing() async throws {
    let server = try TestServer()
    let id = SessionID.random()
    let sessions = try server.sessionRecords()
    #expect(try await sessions.create(SessionRecord(user: nil, lastSeen: noon), as: id))
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: TestServer.cookie(for: id))
      let csrf = Sessions(secret: secret, secureCookies: false, store: sessions, accounts: AccountRecords(InMemoryRecordStorage()))
        .csrfToken(for: Session(id: id, user: .random(), account: nil, isNew: false, setsCookie: false))
      let before = try server.files()
      let sent = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(sent.status == .forbidden)
      #expect(try server.files() == before)
    }
  }
}

extension TestServer {
  /// The cookie the server issues for the session `id`: the id and the server's mark on it.
  static func cookie(for id: SessionID, name: String = Sessions.cookieName) -> String {
    let sessions = Sessions(secret: secret, secureCookies: false, store: SessionRecords(InMemoryRecordStorage()), accounts: AccountRecords(InMemoryRecordStorage()))
    return "\(name)=\(id.rawValue).\(sessions.mark(id))"
  }

  /// A guest's session of `user`, kept in the data folder as the server keeps it; its cookie.
  func guestCookie(for user: UserID) async throws -> String {
    let id = SessionID.random()
    #expect(try await sessionRecords().create(SessionRecord(user: user, lastSeen: noon), as: id))
    return Self.cookie(for: id)
  }

  /// The session records in the server's data folder.
  func sessionRecords() throws -> SessionRecords {
    SessionRecords(try FileRecordStorage(dataDirectory.appendingPathComponent("sessions")))
  }

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

  /// A cookie without the prefix may have been planted by a neighbour site: even one the server
  /// marked is a new visitor behind HTTPS, who gets a prefixed cookie of a new id.
  @Test func aPlainCookieIsANewVisitorBehindHTTPS() async throws {
    let server = try TestServer()
    let user = UserID.random()
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(user, with: state)
    let session = SessionID.random()
    #expect(try await server.sessionRecords().create(SessionRecord(user: user, lastSeen: noon), as: session))
    try await server.application(secureCookies: true).test(.router) { client in
      var planted = Browser(client: client, cookie: TestServer.cookie(for: session))
      let fresh = try await planted.get("/points")
      #expect(fresh.html.contains(#"<p class="big">0pt</p>"#))
      let issued = Self.sessionCookies(fresh)
      #expect(issued.count == 1 && issued[0].hasPrefix("__Host-pointapp_session=") && !issued[0].contains(session.rawValue) && issued[0].contains("Secure"))

      var owner = Browser(client: client, cookie: TestServer.cookie(for: session, name: Sessions.secureCookieName))
      #expect(try await owner.get("/points").html.contains(#"<p class="big">60pt</p>"#))
    }
  }
}

/// What the record layer's versions close: a write that lands between a read and the write after
/// it is never undone, and only ids the server issued become sessions.
struct SessionRaceTests {
  /// Storage that runs `between` once, just before the first replacement: a write that lands
  /// between a session's read and its own write.
  final class Interleaved: RecordStorage {
    let base: InMemoryRecordStorage
    private let between: Mutex<(@Sendable () async throws -> Void)?>

    init(_ base: InMemoryRecordStorage, between: @escaping @Sendable () async throws -> Void) {
      self.base = base
      self.between = Mutex(between)
    }

    func read(_ name: String) async throws -> (data: Data, version: Int64)? { try await base.read(name) }
    func create(_ name: String, _ data: Data) async throws -> Bool { try await base.create(name, data) }
    func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
      if let between = between.withLock({ let first = $0; $0 = nil; return first }) { try await between() }
      return try await base.replace(name, data, at: version)
    }
    func delete(_ name: String, at version: Int64) async throws -> Bool { try await base.delete(name, at: version) }
    func names(after name: String?, limit: Int) async throws -> [String] { try await base.names(after: name, limit: limit) }
  }

  /// The first request in an hour writes the session's `lastSeen`; a logout on another tab lands
  /// between its read and that write. The session stays ended: the request is a new visitor's.
  @Test func aLogoutBetweenASessionsReadAndItsTouchIsNeverUndone() async throws {
    let server = try TestServer()
    let user = UserID.random()
    var state = AppFeature.State()
    state.progress = SavedStateTests.answered([testCatalog[1]])
    try await server.users.replace(user, with: state)
    let id = SessionID.random()
    let ended = SessionRecord(user: nil, lastSeen: noon)
    let records = SessionRecords(InMemoryRecordStorage())
    #expect(try await records.create(SessionRecord(user: user, lastSeen: noon - 2 * Sessions.touchInterval), as: id))
    let racing = Interleaved(records.storage as! InMemoryRecordStorage) {
      try await records.modify(id) { _ in (ended, ()) }
    }
    try await server.application(sessions: racing).test(.router) { client in
      var browser = Browser(client: client, cookie: TestServer.cookie(for: id))
      let page = try await browser.get("/points")
      #expect(page.html.contains(#"<p class="big">0pt</p>"#), "the ended session leads to nobody's points")
      #expect(browser.sessionID != id.rawValue)
    }
    #expect(try await records.read(id)?.record == ended, "the logout stands")
  }

  /// Tried as a new user would: a browser sent a cookie of 32 "b"s and answered a survey; a second
  /// client with the same hand-made cookie must not see those points. A made-up id (and a real id
  /// with a wrong mark) gets an id of the server's own, and is never written.
  @Test func aSessionIdTheServerDidNotIssueIsReplacedNotAdopted() async throws {
    let server = try TestServer()
    let handMade = "pointapp_session=" + String(repeating: "b", count: 32)
    try await server.application().test(.router) { client in
      var first = Browser(client: client, cookie: handMade)
      try await first.get("/surveys")
      let issued = try #require(first.sessionID)
      #expect(issued != String(repeating: "b", count: 32))
      let csrf = try await first.csrf(from: "/surveys/sweets")
      let answered = try await first.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(answered.headers[.location] == "/surveys/sweets/complete")
      #expect(AccountTests.balance(try await first.get("/points")) == "60pt")

      var second = Browser(client: client, cookie: handMade)
      #expect(AccountTests.balance(try await second.get("/points")) == "0pt")
      #expect(second.sessionID != String(repeating: "b", count: 32))
      var forged = Browser(client: client, cookie: "pointapp_session=\(issued).0123456789abcdef")
      #expect(AccountTests.balance(try await forged.get("/points")) == "0pt", "a wrong mark is a new visitor")
      #expect(forged.sessionID != issued)
    }
    #expect(try server.sessionFiles() == ["\(try #require(try server.sessionFiles().first))"])
    #expect(!(try server.sessionFiles().contains(String(repeating: "b", count: 32) + ".json")))
  }

  /// Expired sessions go in bounded steps; live ones, and one touched since it was read, stay.
  @Test func expiredSessionsArePrunedInBoundedSteps() async throws {
    let records = SessionRecords(InMemoryRecordStorage())
    let sessions = Sessions(
      secret: secret, secureCookies: false, store: records, accounts: AccountRecords(InMemoryRecordStorage()))
    let account = AccountID(email: "a@example.jp")
    let kept: [SessionRecord] = [
      SessionRecord(user: .random(), lastSeen: noon - Sessions.guestIdleLimit + 60),
      SessionRecord(user: .random(), account: account, lastSeen: noon - Sessions.accountIdleLimit + 60),
      SessionRecord(user: nil, lastSeen: noon - 86_400),
    ]
    let expired: [SessionRecord] = [
      SessionRecord(user: .random(), lastSeen: noon - Sessions.guestIdleLimit),
      SessionRecord(user: .random(), account: account, lastSeen: noon - Sessions.accountIdleLimit - 60),
      SessionRecord(user: nil, lastSeen: noon - Sessions.guestIdleLimit - 60),
    ]
    var keptIDs: Set<SessionID> = []
    for record in kept {
      let id = SessionID.random()
      keptIDs.insert(id)
      #expect(try await records.create(record, as: id))
    }
    for record in expired { #expect(try await records.create(record, as: .random())) }
    var cursor: SessionID?
    var steps = 0
    var pruned = 0
    repeat {
      let step = try await sessions.pruneExpired(after: cursor, limit: 2, now: noon)
      #expect(step.pruned <= 2)
      cursor = step.next
      pruned += step.pruned
      steps += 1
    } while cursor != nil
    #expect(steps == 4 && pruned == 3, "three steps of two, and one that finds the end")
    #expect(Set(try await records.keys(after: nil, limit: 10)) == keptIDs)
  }
}
