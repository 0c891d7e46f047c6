import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import Testing

@testable import PointAppWeb

/// The answers leave the site: a user's answer is a response the operator counts on the survey's
/// dashboard and downloads, under a pseudonym, never the user's email.
struct ResponsesWebTests {
  @Test func aRegisteredUsersAnswerIsCountedAndExportedUnderAPseudonym() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var user = Browser(client: client)
      try await user.get("/surveys")
      let registerCSRF = try await user.csrf(from: "/register")
      #expect(try await user.post("/register", form: "csrf=\(registerCSRF)&email=hanako%40example.jp&password=correct+horse+battery").status == .seeOther)
      let csrf = try user.csrf(in: try await user.get("/surveys/food-001"))
      // food-001: how often (single), what (multiple), a rating.
      let answered = try await user.post(
        "/surveys/food-001/answers", form: "csrf=\(csrf)&version=1&q%5Bq1%5D=q1-2&q%5Bq2%5D=q2-1&q%5Bq2%5D=q2-3&q%5Bq3%5D=4"
      )
      #expect(answered.headers[.location] == "/surveys/food-001/complete")

      var console = try await AdminTests.signIn(client, server)
      let dashboard = try await console.get("/admin/surveys/food-001")
      #expect(dashboard.status == .ok)
      #expect(dashboard.html.contains("1件 / 目標"), "one complete against the quota")
      #expect(dashboard.html.contains("週に数回</span>"), "the distribution names the choices")
      #expect(dashboard.html.contains("<svg class=\"day-chart\""))

      // Cut when asked for: the address then names the cut (2026-11-22 12:00 in Tokyo, the test's clock).
      let cutNow = try await console.get("/admin/surveys/food-001/responses.csv")
      #expect(cutNow.status == .seeOther)
      #expect(cutNow.headers[.location] == "/admin/surveys/food-001/responses.csv?outcome=&from=&to=&cut=20261122-120000")
      let csv = try await console.following("/admin/surveys/food-001/responses.csv")
      #expect(csv.status == .ok)
      #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
      #expect(csv.headers[.contentDisposition] == "attachment; filename=\"food-001-responses-20261122-120000.csv\"")
      let lines = csv.html.components(separatedBy: "\r\n").filter { !$0.isEmpty }
      #expect(lines.count == 3, "codes, headings, one response")
      #expect(lines[0].hasPrefix("\u{FEFF}respondent,outcome,version"))
      let row = lines[2].components(separatedBy: ",")
      #expect(row[0].hasPrefix("r-") && row[0].count == 18, "a pseudonym")
      #expect(row[1] == "完了" && lines[2].contains("週に数回"))
      #expect(!csv.html.contains("hanako"), "never the email")
      let userID = try #require(try await Sessions.userID(of: user, in: server))
      #expect(!csv.html.contains(userID.rawValue), "never the user id")

      let jsonl = try await console.following("/admin/surveys/food-001/responses.jsonl?outcome=completed&from=2026-11-01&to=2026-12-31")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(jsonl.html.utf8)) as? [String: Any])
      #expect(object["respondent"] as? String == row[0], "the same pseudonym in both")
      #expect(object["Q3"] as? Int == 4 && object["Q2_1"] as? Int == 1 && object["Q2_2"] as? Int == 0)
      let none = try await console.following("/admin/surveys/food-001/responses.csv?outcome=screenedOut")
      #expect(none.html.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2, "the headings only")
      #expect(try await console.get("/admin/surveys/food-001/responses.csv?outcome=everything").status == .badRequest)
      #expect(try await console.get("/admin/surveys/food-001/responses.csv?from=yesterday").status == .badRequest)
      #expect(try await console.following("/admin/surveys/nope/responses.csv").status == .notFound)
      #expect(try await console.get("/admin/surveys/food-001/responses.csv?cut=20261322-120000").status == .badRequest)
      #expect(try await console.get("/admin/surveys/nope").status == .notFound)
      #expect(try await console.get("/admin/audit").html.contains("回答をダウンロード"), "every export is in the audit log")
    }
  }
}

extension ResponsesWebTests {
  /// A guest answers, then signs in to an account: the answer moves into the account, and its
  /// response goes under the account's pseudonym for the survey, once.
  @Test func aGuestWhoSignsInKeepsTheirResponseUnderTheAccountsName() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var owner = Browser(client: client)
      try await owner.get("/surveys")
      let registerCSRF = try await owner.csrf(from: "/register")
      _ = try await owner.post("/register", form: "csrf=\(registerCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      let account = try #require(try await Sessions.userID(of: owner, in: server))

      var guest = Browser(client: client)
      try await guest.get("/surveys")
      try await guest.get("/surveys")
      let guestUser = try #require(try await Sessions.userID(of: guest, in: server))
      let csrf = try guest.csrf(in: try await guest.get("/surveys/food-001"))
      _ = try await guest.post("/surveys/food-001/answers", form: "csrf=\(csrf)&version=1&q%5Bq1%5D=q1-2&q%5Bq2%5D=q2-1&q%5Bq3%5D=4")
      let loginCSRF = try await guest.csrf(from: "/login")
      let loggedIn = try await guest.post("/login", form: "csrf=\(loginCSRF)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(loggedIn.headers[.location] == "/points")

      // The test server's key.
      let names = Sessions(
        secret: secret, secureCookies: false, store: SessionRecords(InMemoryRecordStorage()), accounts: AccountRecords(InMemoryRecordStorage())
      )
      var console = try await AdminTests.signIn(client, server)
      let csv = try await console.following("/admin/surveys/food-001/responses.csv").html
      let rows = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }.dropFirst(2)
      #expect(rows.map { $0.components(separatedBy: ",")[0] } == [names.respondent(account, in: SurveyID("food-001"))])
      #expect(!csv.contains(names.respondent(guestUser, in: SurveyID("food-001"))), "no longer the guest's")
    }
  }
}

extension Sessions {
  /// The user a browser's session leads to, as the server's files keep it.
  static func userID(of browser: Browser, in server: TestServer) async throws -> UserID? {
    let id = try #require(browser.sessionID)
    let records = SessionRecords(try FileRecordStorage(server.dataDirectory.appendingPathComponent("sessions")))
    return try await records.read(try #require(SessionID(id)))?.record.user
  }
}

extension ResponsesWebTests {
  /// The export page cuts the responses at the moment it is asked for and says what each file
  /// holds; the files and their manifests agree with it, and the same address gives the same
  /// bytes after later answers came in (they are past its cut).
  @Test func anExportIsCutAndItsManifestSaysWhatTheFileHolds() async throws {
    let server = try await AdminTests.server()
    let first = try await server.application(storeCatalog: true).test(.router) { client in
      try await Self.answer(client)
      var console = try await AdminTests.signIn(client, server)
      let asked = try await console.get("/admin/surveys/food-001/export?outcome=&from=&to=")
      #expect(asked.headers[.location] == "/admin/surveys/food-001/export?outcome=&from=&to=&cut=20261122-120000", "cut now")
      let page = try await console.following("/admin/surveys/food-001/export?outcome=&from=&to=")
      #expect(page.status == .ok)
      #expect(page.html.contains("2026-11-22 12:00:00") && page.html.contains("第1版の列"))
      let address = "/admin/surveys/food-001/responses.csv?outcome=&from=&to=&cut=20261122-120000"
      #expect(page.html.contains(#"href="\#(address.replacingOccurrences(of: "&", with: "&amp;"))""#), "the download names its cut")
      let csv = try await console.get(address)
      #expect(csv.status == .ok)
      let digest = SHA256.hash(data: Data(buffer: csv.body)).map { String(format: "%02x", $0) }.joined()
      #expect(page.html.contains(digest), "the page gives the file's SHA-256")
      let manifest = try await console.get("/admin/surveys/food-001/responses.csv.manifest.json?outcome=&from=&to=&cut=20261122-120000")
      #expect(manifest.headers[.contentDisposition] == #"attachment; filename="food-001-responses-20261122-120000.csv.manifest.json""#)
      let read = try #require(try JSONSerialization.jsonObject(with: Data(buffer: manifest.body)) as? [String: Any])
      #expect(read["sha256"] as? String == digest && read["rows"] as? Int == 1 && read["versions"] as? [Int] == [1])
      #expect(read["cut"] as? String == "2026-11-22 12:00:00+09:00" && read["survey"] as? String == "food-001")
      return (cookie: console.cookie, csv: Array(buffer: csv.body), manifest: Array(buffer: manifest.body), address: address)
    }
    // A minute later another member answers: the cut address still gives the same file.
    try await server.application(storeCatalog: true, now: noon + 60).test(.router) { client in
      try await Self.answer(client)
      var console = Browser.console(client, cookie: first.cookie)
      #expect(Array(buffer: try await console.get(first.address).body) == first.csv, "the same bytes")
      let manifest = try await console.get("/admin/surveys/food-001/responses.csv.manifest.json?outcome=&from=&to=&cut=20261122-120000")
      #expect(Array(buffer: manifest.body) == first.manifest)
      let now = try await console.following("/admin/surveys/food-001/responses.csv")
      #expect(now.html.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 4, "cut now: both answers")
    }
  }

  /// A new member answers food-001.
  static func answer(_ client: some TestClientProtocol) async throws {
    var user = Browser(client: client)
    try await user.get("/surveys")
    let csrf = try user.csrf(in: try await user.get("/surveys/food-001"))
    let answered = try await user.post("/surveys/food-001/answers", form: "csrf=\(csrf)&version=1&q%5Bq1%5D=q1-2&q%5Bq2%5D=q2-1&q%5Bq3%5D=4")
    #expect(answered.headers[.location] == "/surveys/food-001/complete")
  }
}
