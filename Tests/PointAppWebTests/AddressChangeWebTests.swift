import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// Moving an account to another address over HTTP: asked with the password, confirmed from the
/// link mailed to the new address, the old one told; the new address signs in, the old no more.
struct AddressChangeWebTests {
  static func token(to address: String, in backend: any RecordBackend, data: URL) async throws -> String? {
    try await Mailbox.messages(to: address, in: backend, data: data).compactMap { body in
      body.firstMatch(of: /\/account\/email\/confirm\?token=([0-9a-f]{64})/).map { String($0.1) }
    }.last
  }

  @Test func theLinkAtTheNewAddressMovesTheAccountAndTheOldOneIsTold() async throws {
    let server = try TestServer()
    let data = server.dataDirectory
    let backend = try FileBackend(data)
    try await server.application().test(.router) { client in
      var phone = Browser(client: client)
      try await phone.registerVerified("old@example.jp", in: backend, data: data)
      var desktop = Browser(client: client)
      var csrf = try await desktop.csrf(from: "/login")
      _ = try await desktop.post("/login", form: "csrf=\(csrf)&email=old%40example.jp&password=correct+horse+battery")

      // Refused: a wrong password, the same address, one another account has.
      csrf = try await phone.csrf(from: "/account")
      #expect(try await phone.post("/account/email", form: "csrf=\(csrf)&email=new%40example.jp&password=wrong").headers[.location] == "/account")
      #expect(try await phone.get("/account").html.contains(AccountError.wrongPassword.message))
      csrf = try await phone.csrf(from: "/account")
      _ = try await phone.post("/account/email", form: "csrf=\(csrf)&email=OLD%40example.jp&password=correct+horse+battery")
      #expect(try await phone.get("/account").html.contains(AccountError.sameAddress.message))
      var other = Browser(client: client)
      try await other.registerVerified("taken@example.jp", in: backend, data: data)
      csrf = try await phone.csrf(from: "/account")
      _ = try await phone.post("/account/email", form: "csrf=\(csrf)&email=taken%40example.jp&password=correct+horse+battery")
      #expect(try await phone.get("/account").html.contains(AccountError.emailTaken.message))
      #expect(try await Self.token(to: "taken@example.jp", in: backend, data: data) == nil)

      csrf = try await phone.csrf(from: "/account")
      let asked = try await phone.post("/account/email", form: "csrf=\(csrf)&email=new%40example.jp&password=correct+horse+battery")
      #expect(asked.headers[.location] == "/account")
      #expect(try await phone.get("/account").html.contains("new@example.jp に確認メールを送りました。"))
      let token = try #require(try await Self.token(to: "new@example.jp", in: backend, data: data))
      // Until the link is used, nothing has changed.
      #expect(try await phone.get("/account").html.contains("old@example.jp"))

      // Opened from the new address's mail, on the phone signed in.
      let page = try await phone.get("/account/email/confirm?token=\(token)")
      #expect(page.status == .ok && page.html.contains("メールアドレスを変更する"))
      let moved = try await phone.post("/account/email/confirm", form: "csrf=\(try phone.csrf(in: page))&token=\(token)")
      #expect(moved.headers[.location] == "/account")
      let account = try await phone.get("/account").html
      #expect(account.contains("メールアドレスを new@example.jp に変更しました。") && account.contains("確認済み"))
      // The old address is told, without the new one in full.
      // (Its verification mail was queued at the same moment of the pinned clock: found by its words.)
      let told = try await Mailbox.messages(to: "old@example.jp", in: backend, data: data).first { $0.contains("に変更されました") } ?? ""
      #expect(told.contains("n•••@example.jp に変更されました") && !told.contains("new@example.jp"))
      let owner = try await AccountRecords(backend.table(.accounts)).read(AccountID(email: "new@example.jp"))?.record.user
      #expect(try await Mailbox.users(ofKind: "address-changed", in: backend, data: data) == [owner])
      // The desktop's session ended with the move; the old address signs in no more, the new one does.
      #expect(try await desktop.get("/account").headers[.location] == "/login")
      var later = Browser(client: client)
      csrf = try await later.csrf(from: "/login")
      _ = try await later.post("/login", form: "csrf=\(csrf)&email=old%40example.jp&password=correct+horse+battery")
      #expect(try await later.get("/login").html.contains(AccountError.wrongCredentials.message))
      csrf = try await later.csrf(from: "/login")
      #expect(try await later.post("/login", form: "csrf=\(csrf)&email=new%40example.jp&password=correct+horse+battery").headers[.location] == "/points")
      // Used once.
      let again = try await later.post("/account/email/confirm", form: "csrf=\(try await later.csrf(from: "/account/email/confirm?token=\(token)"))&token=\(token)")
      #expect(again.headers[.location] == "/account")
      #expect(try await later.get("/account").html.contains(AccountError.invalidLink.message))
    }
  }
}
