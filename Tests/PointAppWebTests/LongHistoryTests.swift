import Foundation
import HummingbirdTesting
import PointApp
import PointAppWeb
import Testing

/// A user whose history is long enough to be archived: pages and payments behave as for anyone,
/// reading only the archive files they need.
struct LongHistoryTests {
  static let user = UserID("0123456789abcdef0123456789abcdef")!

  /// Answered `breakfast` first, then `count - 1` surveys no longer in the catalog, one a minute.
  static func longHistory(_ count: Int) -> AppFeature.State {
    var state = AppFeature.State()
    let start = noon - 86_400 * 30
    var progress = UserProgress()
    progress.recordAnswer(to: testCatalog[0], with: [], id: TransactionID(UUID()), at: start, on: Day(start, in: .tokyo))
    for number in 1..<count {
      let date = start + Double(number) * 60
      let survey = Survey(
        id: SurveyID("gone-\(number)"), title: "", description: "", category: .food, questions: [],
        reward: 1, estimatedMinutes: 1, publishedAt: start - 86_400, expiresAt: nil
      )
      progress.recordAnswer(to: survey, with: [], id: TransactionID(UUID()), at: date, on: Day(date, in: .tokyo))
    }
    state.progress = progress
    return state
  }

  func stateBytes(_ server: TestServer) throws -> Data {
    try #require(server.files()["\(Self.user.rawValue).json"])
  }

  func stateFile(_ server: TestServer) throws -> AppFeature.State {
    try SavedState.state(from: stateBytes(server))
  }

  @Test func anAnswerArchivedLongAgoStillShowsAndNeverPaysTwice() async throws {
    let server = try TestServer()
    try await server.users.replace(Self.user, with: Self.longHistory(200))
    let saved = try stateFile(server)
    #expect(saved.progress.answered[testCatalog[0].id] == nil, "breakfast's answer is in the archive")
    #expect(saved.progress.ledger.archivedCount == 180)

    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: Self.user))
      let list = try await browser.get("/surveys").html
      #expect(list.contains("回答済み"))
      let csrf = try await browser.csrf(from: "/surveys/sweets")
      let again = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4")
      #expect(again.status == .seeOther)
      #expect(try await browser.get("/surveys/breakfast/complete").status == .ok)
      let paid = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(paid.headers[.location] == "/surveys/sweets/complete")
    }
    let after = try stateFile(server)
    #expect(after.progress.ledger.count == 201, "sweets paid, breakfast not again")
    #expect(after.progress.ledger.balance.value == 40 + 199 + 60)
    #expect(after.progress.answeredCount == 201)
  }

  @Test func oldHistoryPagesAreReadFromTheArchive() async throws {
    let server = try TestServer()
    try await server.users.replace(Self.user, with: Self.longHistory(200))
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: Self.user))
      let last = try await browser.get("/points/history?page=10")
      #expect(last.status == .ok)
      #expect(last.html.contains("10 / 10"))
      #expect(last.html.contains("アンケート回答「朝ごはんアンケート」"), "the oldest movement")
      #expect(last.html.contains("アンケート回答「gone-19」") && !last.html.contains("gone-20」"))

      let segment = server.dataDirectory.appendingPathComponent("user-archive/\(Self.user.rawValue)~ledger-0.json")
      try FileManager.default.removeItem(at: segment)
      #expect(try await browser.get("/points/history?page=10").status == .serviceUnavailable)
      #expect(try await browser.get("/points/history?page=1").status == .ok, "newest pages need no archive")
    }
  }

  @Test func aVersion1FileIsArchivedAtItsNextSave() async throws {
    let server = try TestServer()
    var state = Self.longHistory(100)
    state.progress.recordVisit(on: Day(noon, in: .tokyo), at: noon)
    // Version 1's shape: every movement under `transactions`, no totals, no answer count.
    var json = try #require(try JSONSerialization.jsonObject(with: SavedState.data(for: state)) as? [String: Any])
    var progress = try #require(json["progress"] as? [String: Any])
    let ledger = try #require(progress["ledger"] as? [String: Any])
    progress["ledger"] = ["transactions": ledger["recent"]!]
    progress["answeredCount"] = nil
    json["progress"] = progress
    json["schemaVersion"] = 1
    let file = server.dataDirectory.appendingPathComponent("users/\(Self.user.rawValue).json")
    try JSONSerialization.data(withJSONObject: json).write(to: file)

    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: Self.user))
      #expect(try await browser.get("/points").html.contains("139pt"))
      _ = try await browser.post("/missions/visit/claim", form: "csrf=\(try await browser.csrf(from: "/missions"))")
      #expect(try await browser.get("/points/history?page=6").html.contains("アンケート回答「朝ごはんアンケート」"))
    }
    let rewritten = try #require(try JSONSerialization.jsonObject(with: stateBytes(server)) as? [String: Any])
    #expect(rewritten["schemaVersion"] as? Int == SavedState.schemaVersion, "the file is rewritten in this version")
    let migrated = try stateFile(server)
    #expect(migrated.progress.ledger.archivedCount == 80)
    #expect(migrated.progress.ledger.count == 101)
    #expect(migrated.progress.ledger.balance == 144)
    #expect(migrated.progress.answered.count == 5)
    let archive = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("user-archive").path)
      .compactMap { RecordName($0).after(Self.user.rawValue + "~") }
    #expect(archive.filter { $0.hasPrefix("answer-") }.count == 95)
    #expect(Set(archive.filter { $0.hasPrefix("ledger-") }) == ["ledger-0.json", "ledger-20.json", "ledger-40.json", "ledger-60.json"])
  }
}
