import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// A forgotten password over HTTP: the same answer for every address, a link by mail to an
/// account's, used once within the hour from any browser, every session of the account ended.
struct PasswordResetWebTests {
  static let newPassword = "a+brand+new+passphrase"

  @Test func aForgottenPasswordIsResetFromTheMailAndEverySessionEnds() async throws {
    let server = try TestServer()
    let mail = try FileBackend(server.dataDirectory)
    try await server.application().test(.router) { client in
      var (phone, csrf) = try await AccountTests.guest(client)
      _ = try await phone.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(try await phone.get("/account").status == .ok)

      // A known address and an unknown one: the same status, the same page, the same words.
      var desktop = Browser(client: client)
      let login = try await desktop.get("/login")
      #expect(login.html.contains(#"<a href="/password/forgot">パスワードを忘れた方</a>"#))
      let form = try desktop.csrf(in: try await desktop.get("/password/forgot"))
      var pages: [String] = []
      for address in ["hanako%40example.jp", "nobody%40example.jp"] {
        let asked = try await desktop.post("/password/forgot", form: "csrf=\(form)&email=\(address)")
        #expect(asked.status == .seeOther && asked.headers[.location] == "/password/forgot")
        pages.append(try await desktop.get("/password/forgot").html)
      }
      #expect(pages[0] == pages[1] && pages[0].contains("入力されたメールアドレスが登録されていれば"))
      #expect(try await Mailbox.messages(to: "nobody@example.jp", in: mail, data: server.dataDirectory).isEmpty)
      let token = try #require(try await Mailbox.resetToken(to: "hanako@example.jp", in: mail, data: server.dataDirectory))
      // Asked for from a guest's browser, queued under the account's user: the desk shows whose.
      let owner = try await AccountRecords(mail.table(.accounts)).read(AccountID(email: "hanako@example.jp"))?.record.user
      #expect(try await Mailbox.users(ofKind: "password-reset", in: mail, data: server.dataDirectory) == [owner])
      // (Queued at the test's one moment, after the verification mail, so found by its link.)
      let bodies = try await Mailbox.messages(to: "hanako@example.jp", in: mail, data: server.dataDirectory)
      let body = try #require(bodies.last { $0.contains("/password/reset?token=") })
      #expect(body.contains("受け付けました（2026/11/22 12:00）") && body.contains("2026/11/22 13:00 まで、1回だけ"))
      let stored = try #require(try await AccountRecords(mail.table(.accounts)).read(AccountID(email: "hanako@example.jp"))?.record)
      let storedJSON = String(decoding: try SavedJSON.encode(stored), as: UTF8.self)
      #expect(stored.reset != nil && !storedJSON.contains(String(token.suffix(32))), "only the secret's hash is kept")

      // The link, on the desktop: a new password; the phone's session has ended with it.
      let page = try await desktop.get("/password/reset?token=\(token)")
      #expect(page.status == .ok && page.html.contains("新しいパスワードの登録"))
      let resetForm = try desktop.csrf(in: page)
      let reset = try await desktop.post("/password/reset", form: "csrf=\(resetForm)&token=\(token)&password=\(Self.newPassword)")
      #expect(reset.headers[.location] == "/login")
      #expect(try await desktop.get("/login").html.contains("パスワードを再設定しました。"))
      #expect(try await phone.get("/account").headers[.location] == "/login", "the phone's session ended")
      let after = try #require(try await AccountRecords(mail.table(.accounts)).read(AccountID(email: "hanako@example.jp"))?.record)
      #expect(after.reset == nil && after.verifiedAt == noon, "the link reached the address: verified")

      // Once only; the old password no longer opens the account, the new one does.
      _ = try await desktop.post("/password/reset", form: "csrf=\(resetForm)&token=\(token)&password=\(Self.newPassword)")
      #expect(try await desktop.get("/password/forgot").html.contains(AccountError.invalidResetLink.message))
      let loginForm = try desktop.csrf(in: try await desktop.get("/login"))
      let old = try await desktop.post("/login", form: "csrf=\(loginForm)&email=hanako%40example.jp&password=correct+horse+battery")
      #expect(old.headers[.location] == "/login")
      let new = try await desktop.post("/login", form: "csrf=\(loginForm)&email=hanako%40example.jp&password=\(Self.newPassword)")
      #expect(new.headers[.location] == "/points")
    }
  }

  @Test func aLinkPastItsHourOrASecondAskWithinAMinuteChangesNothing() async throws {
    let server = try TestServer()
    let mail = try FileBackend(server.dataDirectory)
    try await server.application().test(.router) { client in
      var (browser, csrf) = try await AccountTests.guest(client)
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      var asker = Browser(client: client)
      let form = try asker.csrf(in: try await asker.get("/password/forgot"))
      for _ in 0..<2 { _ = try await asker.post("/password/forgot", form: "csrf=\(form)&email=hanako%40example.jp") }
      let bodies = try await Mailbox.messages(to: "hanako@example.jp", in: mail, data: server.dataDirectory)
      #expect(bodies.filter { $0.contains("/password/reset?token=") }.count == 1, "a second ask within the minute sends nothing")
    }
    let token = try #require(try await Mailbox.resetToken(to: "hanako@example.jp", in: mail, data: server.dataDirectory))
    try await server.application(now: noon.addingTimeInterval(3601)).test(.router) { client in
      var browser = Browser(client: client)
      let csrf = try browser.csrf(in: try await browser.get("/password/reset?token=\(token)"))
      let late = try await browser.post("/password/reset", form: "csrf=\(csrf)&token=\(token)&password=\(Self.newPassword)")
      #expect(late.headers[.location] == "/password/forgot")
      #expect(try await browser.get("/password/forgot").html.contains(AccountError.invalidResetLink.message))
      #expect(try await browser.get("/password/reset?token=abc").status == .notFound)
    }
  }
}
