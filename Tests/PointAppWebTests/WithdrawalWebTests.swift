import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import Testing

@testable import PointAppWeb

/// 退会 over HTTP, on files and on PostgreSQL: the data download first, the password asked, then
/// no trace of the address or the profile anywhere the site keeps data; the responses still count.
struct WithdrawalWebTests {
  static let address = "taikai@example.jp"

  /// Registers, verifies, saves a profile with an uncommon occupation and answers a survey; then
  /// downloads the data, is refused with a wrong password, and leaves. Whether a login still works.
  static func leave(_ client: some TestClientProtocol, backend: any RecordBackend, data: URL) async throws {
    var member = Browser(client: client)
    try await member.registerVerified(address, in: backend, data: data)
    var csrf = try await member.csrf(from: "/profile")
    #expect(try await member.post("/profile", form: "csrf=\(csrf)&birthYear=1987&gender=female&prefecture=okinawa&occupation=student").status == .seeOther)
    csrf = try await member.csrf(from: "/surveys/sweets")
    #expect(try await member.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5").headers[.location] == "/surveys/sweets/complete")

    // What we hold, as one file.
    let download = try await member.get("/account/data.json")
    #expect(download.status == .ok && download.headers[.contentDisposition]?.contains("attachment") == true)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: download.body)) as? [String: Any])
    #expect((json["account"] as? [String: Any])?["email"] as? String == address)
    #expect((json["profile"] as? [String: Any])?["birthYear"] as? Int == 1987)
    #expect((json["answers"] as? [[String: Any]])?.map { $0["survey"] as? String } == ["sweets"])
    #expect((json["movements"] as? [[String: Any]])?.contains { $0["points"] as? Int == 60 } == true)
    #expect((json["notifications"] as? [String: Bool]) == ["invitations": true, "expiry": true])
    // The answer's 60 pt and the profile's bonus: what leaving loses, said on the page and its button.
    let balance = try #require(PointAmount(json["balance"] as? Int ?? 0).map { "\($0)" })
    #expect(balance == "\(PointAmount(60 + Profile.bonus.value)!)")
    let page = try await member.get("/account/withdraw")
    #expect(page.html.contains(#"<p class="big">\#(balance)"#) && page.html.contains("\(balance)を失って退会する"))
    csrf = try member.csrf(in: page)
    #expect(try await member.post("/account/withdraw", form: "csrf=\(csrf)&password=wrong+password").headers[.location] == "/account/withdraw")
    #expect(try await member.get("/account/withdraw").html.contains(AccountError.wrongPassword.message))
    csrf = try await member.csrf(from: "/account/withdraw")
    let left = try await member.post("/account/withdraw", form: "csrf=\(csrf)&password=correct+horse+battery")
    #expect(left.headers[.location] == "/account/withdrawn")
    let after = try await member.get("/account/withdrawn")
    #expect(after.html.contains("退会しました") && !after.html.contains(address), "signed out")
    #expect(try await member.get("/account/data.json").status == .notFound)
    // The address signs in no more; the same browser is a guest.
    var again = Browser(client: client)
    csrf = try await again.csrf(from: "/login")
    _ = try await again.post("/login", form: "csrf=\(csrf)&email=\(address.replacingOccurrences(of: "@", with: "%40"))&password=correct+horse+battery")
    #expect(try await again.get("/login").html.contains(AccountError.wrongCredentials.message))
  }

  @Test func onFilesNoTraceOfTheAddressOrProfileIsLeft() async throws {
    let server = try TestServer()
    let backend = try FileBackend(server.dataDirectory)
    try await server.application().test(.live) { client in
      try await Self.leave(client, backend: backend, data: server.dataDirectory)
      // The last mail goes out, to the address, and leaves the queue.
      try await eventually { try NoticesWebTests.delivered(to: Self.address, in: server.dataDirectory).contains { $0.contains("退会") } }
      try await eventually { try await MailQueue(backend).waiting(after: nil).isEmpty }
    }
    // Every file the site keeps, but the delivered mail (the outbox folder is the mail system's
    // side: on SMTP the messages are the recipient's server's).
    var found: [String] = []
    let root = server.dataDirectory
    for case let file as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)! where !file.path.contains("/mail-outbox/") {
      guard let data = try? Data(contentsOf: file) else { continue }
      // A commit log's records decoded from every frame, applied or not (base64 in an earlier
      // program's JSON hid them from a search of the bytes).
      let logged = file.pathExtension == "log" ? CommitLog.frames(in: data).flatMap { (try? FileBackend.Intended.changes(from: $0.body)) ?? [] }.compactMap(\.data) : []
      let texts = ([data] + logged).map { String(decoding: $0, as: UTF8.self) }
      if texts.contains(where: { $0.contains(Self.address) || $0.contains("okinawa") || $0.contains("\"birthYear\"") }) {
        found.append(file.path.replacingOccurrences(of: root.path, with: ""))
      }
    }
    #expect(found.isEmpty, "the address or profile is still in \(found)")
    #expect(try await ResponseStore(backend.table(.responses)).counts(of: SurveyID("sweets")).completes == 1, "the answer still counts")
  }

  @Test(.enabled(if: TestDatabase.enabled, TestDatabase.notInstalled))
  func onPostgreSQLNoTraceOfTheAddressOrProfileIsLeft() async throws {
    let database = try await TestDatabase.make()
    let server = try TestServer()
    let backend = PostgresBackend(database)
    try await server.application(databaseURL: database.url).test(.live) { client in
      try await Self.leave(client, backend: backend, data: server.dataDirectory)
      try await eventually { try await MailQueue(backend).waiting(after: nil).isEmpty }
    }
    var found: [String] = []
    for kind in RecordKind.all {
      let rows = try await database.query("SELECT id, record FROM \(unescaped: kind.table)")
      for row in rows {
        let (id, record) = try row.decode((String, String).self)
        if record.contains(Self.address) || record.contains("okinawa") || record.contains("\"birthYear\"") { found.append("\(kind.table)/\(id)") }
      }
    }
    #expect(found.isEmpty, "the address or profile is still in \(found)")
    #expect(try await ResponseStore(backend.table(.responses)).counts(of: SurveyID("sweets")).completes == 1, "the answer still counts")
  }
}
