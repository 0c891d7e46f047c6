import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// Verifying the address over HTTP: the mail a registration queues, its link opened in any
/// browser, once, within 24 hours; the exchange waiting for it.
struct AddressVerificationWebTests {
  @Test func theRegistrationsMailCarriesALinkThatVerifiesOnceFromAnyBrowser() async throws {
    let server = try TestServer()
    let mail = try FileBackend(server.dataDirectory)
    try await server.application().test(.router) { client in
      var (phone, csrf) = try await AccountTests.guest(client)
      _ = try await phone.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      let messages = try await Mailbox.messages(to: "hanako@example.jp", in: mail, data: server.dataDirectory)
      let body = try #require(messages.first)
      #expect(messages.count == 1)
      #expect(body.contains("http://localhost:8080/account/verify?token="))
      #expect(body.contains("PointApp 運営事務局") && body.contains("〒100-0005"), "the sender's name and address")
      let account = try await phone.get("/account").html
      #expect(account.contains("未確認です。") && account.contains(#"action="/account/verification""#))

      // Exchanging waits for it (the session's id, and so its token, is new since the registration).
      csrf = try phone.csrf(in: try await phone.get("/account"))
      let refused = try await phone.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=1")
      #expect(refused.headers[.location] == "/account")
      #expect(try await phone.get("/account").html.contains("ポイント交換の前に、登録したメールアドレスの確認をお願いします。"))

      // The link opened on another browser, by a guest there: its page asks for the press.
      let token = try #require(try await Mailbox.verificationToken(to: "hanako@example.jp", in: mail, data: server.dataDirectory))
      var desktop = Browser(client: client)
      let page = try await desktop.get("/account/verify?token=\(token)")
      #expect(page.status == .ok && page.html.contains("メールアドレスを確認する"))
      let desktopCSRF = try desktop.csrf(in: page)
      let verified = try await desktop.post("/account/verify", form: "csrf=\(desktopCSRF)&token=\(token)")
      #expect(verified.headers[.location] == "/login")
      #expect(try await desktop.get("/login").html.contains("メールアドレスを確認しました。ログインしてご利用ください。"))
      let stored = try #require(try await AccountRecords(mail.table(.accounts)).read(AccountID(email: "hanako@example.jp"))?.record)
      #expect(stored.verifiedAt == noon && stored.verification == nil)
      #expect(!String(decoding: try SavedJSON.encode(stored), as: UTF8.self).contains(String(token.suffix(32))), "never the secret")

      // Used: once only, and a used link says no more than a made-up one (which account exists,
      // or is verified, is not for a link's answer to tell). The phone's account page says done.
      _ = try await desktop.post("/account/verify", form: "csrf=\(desktopCSRF)&token=\(token)")
      #expect(try await desktop.get("/login").html.contains(AccountError.invalidLink.message))
      let guessed = AccountID(email: "hanako@example.jp").rawValue + String(repeating: "0", count: 32)
      _ = try await desktop.post("/account/verify", form: "csrf=\(desktopCSRF)&token=\(guessed)")
      #expect(try await desktop.get("/login").html.contains(AccountError.invalidLink.message))
      let after = try await phone.get("/account").html
      #expect(after.contains("確認済み") && !after.contains("未確認です。"))
    }
  }

  @Test func aLinkPastItsDayOrNotOursVerifiesNothing() async throws {
    let server = try TestServer()
    let mail = try FileBackend(server.dataDirectory)
    let cookie = try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let csrf = try await browser.csrf(from: "/register")
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      return try #require(browser.cookie)
    }
    let token = try #require(try await Mailbox.verificationToken(to: "hanako@example.jp", in: mail, data: server.dataDirectory))
    try await server.application(now: noon.addingTimeInterval(24 * 3600 + 1)).test(.router) { client in
      var browser = Browser(client: client, cookie: cookie)
      let csrf = try await browser.csrf(from: "/account/verify?token=\(token)")
      #expect(try await browser.post("/account/verify", form: "csrf=\(csrf)&token=\(token)").headers[.location] == "/account")
      let account = try await browser.get("/account").html
      #expect(account.contains(AccountError.invalidLink.message) && account.contains("未確認です。"))
      // Cut short, another account's id, or made up.
      #expect(try await browser.get("/account/verify?token=\(token.prefix(40))").status == .notFound)
      let forged = String(repeating: "0", count: 32) + token.suffix(32)
      _ = try await browser.post("/account/verify", form: "csrf=\(csrf)&token=\(forged)")
      #expect(try await browser.get("/account").html.contains(AccountError.invalidLink.message))
      #expect(try await browser.post("/account/verify", form: "csrf=\(csrf)").status == .badRequest)
    }
  }

  @Test func anotherLinkWaitsAMinuteAndReplacesTheFirst() async throws {
    let server = try TestServer()
    let mail = try FileBackend(server.dataDirectory)
    let cookie = try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let registering = try await browser.csrf(from: "/register")
      _ = try await browser.post("/register", form: "csrf=\(registering)&email=hanako%40example.jp&password=correct+horse+battery")
      // At once: refused, nothing sent.
      let csrf = try await browser.csrf(from: "/account")
      #expect(try await browser.post("/account/verification", form: "csrf=\(csrf)").headers[.location] == "/account")
      #expect(try await browser.get("/account").html.contains(AccountError.tooManyLinks.message))
      return try #require(browser.cookie)
    }
    let first = try #require(try await Mailbox.verificationToken(to: "hanako@example.jp", in: mail, data: server.dataDirectory))
    #expect(try await Mailbox.messages(to: "hanako@example.jp", in: mail, data: server.dataDirectory).count == 1)
    try await server.application(now: noon.addingTimeInterval(61)).test(.router) { client in
      var browser = Browser(client: client, cookie: cookie)
      let csrf = try await browser.csrf(from: "/account")
      _ = try await browser.post("/account/verification", form: "csrf=\(csrf)")
      #expect(try await browser.get("/account").html.contains("hanako@example.jp に確認メールを送りました。"))
      #expect(try await Mailbox.messages(to: "hanako@example.jp", in: mail, data: server.dataDirectory).count == 2)
      _ = try await browser.post("/account/verify", form: "csrf=\(csrf)&token=\(first)")
      #expect(try await browser.get("/account").html.contains(AccountError.invalidLink.message), "the first link was replaced")
      try await browser.verifyAddress("hanako@example.jp", in: mail, data: server.dataDirectory)
      #expect(try await browser.get("/account").html.contains("メールアドレスを確認しました。ポイントを交換できるようになりました。"))
    }
  }
}
