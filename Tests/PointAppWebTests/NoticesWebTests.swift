import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import Testing

@testable import PointAppWeb

/// Invitations and expiry warnings over HTTP, with the server's own workers running: who gets
/// them, once each; the settings page; the one-click unsubscribe of RFC 8058.
struct NoticesWebTests {
  /// Every message in the outbox folder to `address`, whole (headers and body).
  static func delivered(to address: String, in data: URL) throws -> [String] {
    let outbox = data.appendingPathComponent("mail-outbox")
    return try ((try? FileManager.default.contentsOfDirectory(atPath: outbox.path)) ?? []).filter { $0.hasSuffix(".eml") && !$0.hasPrefix(".") }
      .map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
      .filter { $0.contains("\r\nTo: <\(address)>\r\n") }
  }

  @Test func aPublishedSurveyInvitesEachVerifiedMemberOnceAndOneClickStopsIt() async throws {
    let server = try await AdminTests.server()
    let data = server.dataDirectory
    let backend = try FileBackend(data)
    try await server.application(storeCatalog: true).test(.live) { client in
      var hanako = Browser(client: client)
      try await hanako.registerVerified("hanako@example.jp", in: backend, data: data)
      var taro = Browser(client: client)
      try await taro.registerVerified("taro@example.jp", in: backend, data: data)
      // Jiro stops invitations; Saburo never verifies his address.
      var jiro = Browser(client: client)
      try await jiro.registerVerified("jiro@example.jp", in: backend, data: data)
      let settings = try await jiro.get("/account/notifications")
      #expect(settings.html.contains(#"value="invitations" checked"#) && settings.html.contains(#"value="expiry" checked"#))
      let saved = try await jiro.post("/account/notifications", form: "csrf=\(try jiro.csrf(in: settings))&lists=expiry")
      #expect(saved.headers[.location] == "/account/notifications")
      let after = try await jiro.get("/account/notifications").html
      #expect(after.contains("メールの配信設定を保存しました。") && !after.contains(#"value="invitations" checked"#) && after.contains(#"value="expiry" checked"#))
      var saburo = Browser(client: client)
      let csrf = try await saburo.csrf(from: "/register")
      _ = try await saburo.post("/register", form: "csrf=\(csrf)&email=saburo%40example.jp&password=correct+horse+battery")

      // The operator publishes; the dashboard follows the invitations.
      var console = try await AdminTests.signIn(client, server)
      let token = try console.csrf(in: try await console.get("/admin/surveys"))
      let edit = try #require(try await console.post("/admin/surveys/new", form: "csrf=\(token)").headers[.location])
      let id = String(edit.dropFirst("/admin/surveys/".count).dropLast("/edit".count))
      _ = try await console.post(edit, form: SurveyEditorTests.encode(SurveyEditorTests.fields(title: "新しい朝食調査", csrf: token, intent: "save")))
      #expect(try await console.post("/admin/surveys/\(id)/publish", form: "csrf=\(token)").headers[.location] == "/admin/surveys")
      try await eventually { try await console.get("/admin/surveys/\(id)").html.contains("招待メール") }
      try await eventually { try await console.get("/admin/surveys/\(id)").html.contains("2通（会員4人を確認・完了") }
      // Delivered by the server's sender within a second or so (more on a busy machine).
      for member in ["hanako@example.jp", "taro@example.jp"] {
        try await eventually { try Self.delivered(to: member, in: data).contains { $0.contains("list=invitations") } }
      }

      let invitation = try #require(try Self.delivered(to: "hanako@example.jp", in: data).first { $0.contains("list=invitations") })
      #expect(invitation.contains("新しい朝食調査") && invitation.contains("http://localhost:8080/surveys/\(id)"))
      #expect(invitation.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"))
      let link = try #require(invitation.firstMatch(of: /List-Unsubscribe: <http:\/\/localhost:8080(\/unsubscribe\?token=[0-9a-f]{64}&list=invitations)>/)).1
      #expect(invitation.contains("配信の停止: http://localhost:8080" + link), "the body carries the link too")
      #expect(try Self.delivered(to: "jiro@example.jp", in: data).count == 1, "his verification only")
      #expect(try await Mailbox.messages(to: "saburo@example.jp", in: backend, data: data).count == 1, "his verification only")
      // 新着 on the list, until answered.
      let list = try await hanako.get("/surveys").html
      let card = try #require(list.range(of: "新しい朝食調査"))
      #expect(list[list.index(card.lowerBound, offsetBy: -400)..<card.lowerBound].contains("新着"))

      // Another second of the worker sends nothing more.
      try await Task.sleep(for: .seconds(2))
      #expect(try Self.delivered(to: "hanako@example.jp", in: data).count == 2)

      // The mail program's one click: a POST with no cookie. A made-up token is no link of ours.
      let oneClick = try await client.execute(
        uri: String(link), method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "List-Unsubscribe=One-Click")
      )
      #expect(oneClick.status == .ok && String(buffer: oneClick.body).contains("「新着アンケートのお知らせ」の配信を停止しました。"))
      let forged = String(link).replacingOccurrences(of: "list=", with: "x=").replacingOccurrences(of: "token=", with: "token=0")
      #expect(try await client.execute(uri: forged, method: .post, headers: [:], body: ByteBuffer()).status == .notFound)
      let madeUp = "/unsubscribe?token=" + String(repeating: "ab", count: 32) + "&list=invitations"
      #expect(try await client.execute(uri: madeUp, method: .post, headers: [:], body: ByteBuffer()).status == .notFound)
      let hers = try await hanako.get("/account/notifications").html
      #expect(!hers.contains(#"value="invitations" checked"#) && hers.contains(#"value="expiry" checked"#))
    }
  }

  /// A pass reads the members its rate at a time (20 by default), ten reads a page at most, and ends
  /// on the read that finds none: every member looked at once, whether they fill the reads and
  /// pages exactly or not, and a pass over none ends too.
  @Test(arguments: [0, 1, 21, 200, 201])
  func aPassLooksAtEveryMemberOnceAndEnds(members: Int) async throws {
    let server = try TestServer()
    let backend = try FileBackend(server.dataDirectory)
    let accounts = AccountRecords(backend.table(.accounts))
    for number in 0..<members {
      let user = UserID.random()
      var account = Account(email: "member-\(number)@example.jp", passwordHash: "-", user: user, created: noon)
      account.verifiedAt = noon
      _ = try await accounts.create(account, as: account.id)
      try await server.users.replace(user, with: AppFeature.State())
    }
    try await server.application().test(.live) { _ in
      let done = server.dataDirectory.appendingPathComponent("notice-runs/done-expiry-\(Day(noon, in: .tokyo).iso).json")
      try await eventually { FileManager.default.fileExists(atPath: done.path) }
      let record = try JSONSerialization.jsonObject(with: Data(contentsOf: done)) as? [String: Any]
      let progress = (record?["record"] as? [String: Any])?["progress"] as? [String: Any]
      #expect(progress?["examined"] as? Int == members, "\(members) members at 20 a read, 200 a page")
    }
  }

  @Test func theLinkInABrowserAsksBeforeItStops() async throws {
    let server = try TestServer()
    let data = server.dataDirectory
    let backend = try FileBackend(data)
    try await server.application().test(.router) { client in
      var hanako = Browser(client: client)
      try await hanako.registerVerified("hanako@example.jp", in: backend, data: data)
      let users = try await AccountRecords(backend.table(.accounts)).read(AccountID(email: "hanako@example.jp"))
      let user = try #require(users?.record.user)
      let sessions = Sessions(secret: secret, secureCookies: false, store: SessionRecords(InMemoryRecordStorage()), accounts: AccountRecords(InMemoryRecordStorage()))
      let link = "/unsubscribe?token=\(sessions.unsubscribeToken(for: user))&list=expiry"
      // Fetching it (a mail scanner does) changes nothing.
      var stranger = Browser(client: client)
      let page = try await stranger.get(link)
      #expect(page.status == .ok && page.html.contains("「ポイント失効のお知らせ」のメールの配信を停止します。"))
      #expect(page.html.contains(#"action="\#(link.replacingOccurrences(of: "&", with: "&amp;"))""#))
      #expect(try await hanako.get("/account/notifications").html.contains(#"value="expiry" checked"#))
      let done = try await stranger.post(link, form: "")
      #expect(done.status == .ok && done.html.contains("配信を停止しました"))
      let settings = try await hanako.get("/account/notifications").html
      #expect(!settings.contains(#"value="expiry" checked"#) && settings.contains(#"value="invitations" checked"#))
      #expect(try await stranger.get("/unsubscribe?token=\(sessions.unsubscribeToken(for: user))&list=spam").status == .notFound)
      // The settings form takes only lists there are.
      let csrf = try hanako.csrf(in: try await hanako.get("/account/notifications"))
      #expect(try await hanako.post("/account/notifications", form: "csrf=\(csrf)&lists=spam").status == .badRequest)
    }
  }

  /// Two days before a survey's deadline, the members it invited who have not answered it are
  /// reminded, once, by the server's own pass; the one who answered is not.
  @Test func aSurveyClosingSoonRemindsThoseInvitedWhoHaveNotAnswered() async throws {
    let server = try await AdminTests.server()
    let data = server.dataDirectory
    let backend = try FileBackend(data)
    let id = try await server.application(storeCatalog: true).test(.live) { client in
      var hanako = Browser(client: client)
      try await hanako.registerVerified("hanako@example.jp", in: backend, data: data)
      var taro = Browser(client: client)
      try await taro.registerVerified("taro@example.jp", in: backend, data: data)
      var console = try await AdminTests.signIn(client, server)
      let token = try console.csrf(in: try await console.get("/admin/surveys"))
      let edit = try #require(try await console.post("/admin/surveys/new", form: "csrf=\(token)").headers[.location])
      let id = String(edit.dropFirst("/admin/surveys/".count).dropLast("/edit".count))
      // Closing three days on.
      let fields = SurveyEditorTests.fields(title: "締切のある調査", csrf: token, intent: "save").map { $0.0 == "deadline" ? ("deadline", "2026-11-25T12:00") : $0 }
      _ = try await console.post(edit, form: SurveyEditorTests.encode(fields))
      #expect(try await console.post("/admin/surveys/\(id)/publish", form: "csrf=\(token)").headers[.location] == "/admin/surveys")
      for member in ["hanako@example.jp", "taro@example.jp"] {
        try await eventually { try Self.delivered(to: member, in: data).contains { $0.contains("list=invitations") } }
      }
      let csrf = try await taro.csrf(from: "/surveys/\(id)")
      let answered = try await taro.post("/surveys/\(id)/answers", form: "csrf=\(csrf)&version=1&q%5Bq1%5D=c1&q%5Bq2%5D%5Br1%5D=c1&q%5Bq2%5D%5Br2%5D=c2")
      #expect(answered.headers[.location] == "/surveys/\(id)/complete")
      return id
    }
    // Two days later: a day before the deadline.
    try await server.application(storeCatalog: true, now: noon + 2 * 86_400).test(.live) { _ in
      try await eventually { try Self.delivered(to: "hanako@example.jp", in: data).contains { $0.contains("締切が近づいています") } }
      let reminder = try #require(try Self.delivered(to: "hanako@example.jp", in: data).first { $0.contains("締切が近づいています") })
      #expect(reminder.contains("http://localhost:8080/surveys/\(id)") && reminder.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"))
      try await Task.sleep(for: .seconds(2))
      #expect(try Self.delivered(to: "hanako@example.jp", in: data).count == 3, "verification, invitation, one reminder")
      #expect(try !Self.delivered(to: "taro@example.jp", in: data).contains { $0.contains("締切が近づいています") }, "he answered")
    }
  }

  /// Points earned a year ago expire at the end of the month: a member away all year is warned
  /// once by the day's pass, with the amount and the date.
  @Test func aMemberAwayIsWarnedOnceBeforeTheirPointsExpire() async throws {
    let server = try TestServer()
    let data = server.dataDirectory
    let backend = try FileBackend(data)
    let yearAgo = noon.addingTimeInterval(-365 * 86_400)
    let catalog = [Survey(
      id: SurveyID("sweets"), title: "スイーツ調査", description: "コンビニスイーツについて", category: .food,
      questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
      reward: 60, estimatedMinutes: 3, publishedAt: yearAgo - 86_400, expiresAt: nil
    )]
    try await server.application(catalog: catalog, now: yearAgo).test(.router) { client in
      var hanako = Browser(client: client)
      try await hanako.registerVerified("hanako@example.jp", in: backend, data: data)
      let csrf = try await hanako.csrf(from: "/surveys/sweets")
      #expect(try await hanako.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5").headers[.location] == "/surveys/sweets/complete")
      var taro = Browser(client: client)
      try await taro.registerVerified("taro@example.jp", in: backend, data: data)  // nothing to lose
    }
    try await server.application(catalog: catalog).test(.live) { _ in
      try await eventually { try Self.delivered(to: "hanako@example.jp", in: data).count == 2 }
      let warning = try #require(try Self.delivered(to: "hanako@example.jp", in: data).first { $0.contains("list=expiry") })
      let body = warning[try #require(warning.range(of: "\r\n\r\n")).upperBound...]
      #expect(body.contains("・60pt（2025年11月に獲得）: 2026年11月末 に失効"), "\(body)")
      try await Task.sleep(for: .seconds(2))
      #expect(try Self.delivered(to: "hanako@example.jp", in: data).count == 2)
      #expect(try Self.delivered(to: "taro@example.jp", in: data).count == 1)
    }
  }
}
