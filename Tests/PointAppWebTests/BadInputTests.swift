import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// Bad input gets its 4xx page in Japanese and leaves every user file byte-identical.
struct BadInputTests {
  /// Runs `attack` against a user who has answered a survey, then checks status, page and files.
  func expect(
    _ status: HTTPResponse.Status,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ attack: @escaping @Sendable (inout Browser, String) async throws -> TestResponse
  ) async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      _ = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      let before = try server.files()
      let response = try await attack(&browser, csrf)
      #expect(response.status == status, sourceLocation: sourceLocation)
      #expect(response.html.contains(#"<html lang="ja">"#), sourceLocation: sourceLocation)
      #expect(response.html.contains(#"<p class="error-status">\#(status.code)</p>"#), sourceLocation: sourceLocation)
      #expect(try server.files() == before, "user files changed", sourceLocation: sourceLocation)
    }
  }

  @Test func malformedFormsAre400() async throws {
    try await expect(.badRequest) { browser, csrf in
      try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=%ZZ")
    }
    try await expect(.badRequest) { browser, csrf in
      try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bcomment%5D=%FF%FE")
    }
    try await expect(.badRequest) { browser, csrf in
      try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&=nameless")
    }
    try await expect(.badRequest) { browser, _ in try await browser.get("/surveys?category=pets") }
    try await expect(.badRequest) { browser, _ in try await browser.get("/points/history?page=two") }
  }

  /// A page's path asked with another method, or a form's path opened as a page: 405, with the
  /// methods the path takes; nothing changes, even with a valid CSRF token.
  @Test func wrongMethodsAre405NamingTheRightOnes() async throws {
    try await expect(.methodNotAllowed) { browser, csrf in
      let response = try await browser.post("/points", form: "csrf=\(csrf)")
      #expect(response.headers[.allow] == "GET, HEAD")
      return response
    }
    try await expect(.methodNotAllowed) { browser, _ in
      let response = try await browser.get("/surveys/sweets/answers")
      #expect(response.headers[.allow] == "POST")
      return response
    }
    try await expect(.methodNotAllowed) { browser, csrf in
      try await browser.request("/missions/visit/claim", method: .delete, body: "csrf=\(csrf)")
    }
    try await expect(.notFound) { browser, csrf in try await browser.post("/nowhere", form: "csrf=\(csrf)") }
  }

  @Test func duplicateCSRFFieldsAreRefused() async throws {
    try await expect(.forbidden) { browser, csrf in
      try await browser.post("/missions/visit/claim", form: "csrf=\(csrf)&csrf=\(csrf)")
    }
  }

  @Test func unknownPagesAndIdsAre404() async throws {
    try await expect(.notFound) { browser, _ in try await browser.get("/nowhere") }
    try await expect(.notFound) { browser, _ in try await browser.get("/surveys/unknown") }
    try await expect(.notFound) { browser, csrf in
      try await browser.post("/surveys/unknown/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
    }
    try await expect(.notFound) { browser, csrf in try await browser.post("/missions/jackpot/claim", form: "csrf=\(csrf)") }
    try await expect(.notFound) { browser, csrf in try await browser.post("/exchange/yacht", form: "csrf=\(csrf)&ledger=0") }
  }

  @Test func anExchangeWithoutTheLedgerItWasConfirmedOnIs400() async throws {
    try await expect(.badRequest) { browser, csrf in try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)") }
    try await expect(.badRequest) { browser, csrf in try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=x") }
  }

  @Test func aHugeBodyIs413() async throws {
    try await expect(.contentTooLarge) { browser, csrf in
      try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bcomment%5D=" + String(repeating: "a", count: 100_000))
    }
  }

  @Test func aPostThatIsNotAFormIs415() async throws {
    try await expect(.unsupportedMediaType) { browser, csrf in
      try await browser.request("/missions/visit/claim", method: .post, headers: [.contentType: "application/json"], body: #"{"csrf":"\#(csrf)"}"#)
    }
  }

  @Test func crossSitePostsAre403() async throws {
    try await expect(.forbidden) { browser, _ in try await browser.post("/missions/visit/claim", form: "") }
    try await expect(.forbidden) { browser, _ in try await browser.post("/missions/visit/claim", form: "csrf=0123") }
    try await expect(.forbidden) { browser, csrf in
      try await browser.post("/missions/visit/claim", form: "csrf=\(csrf)", headers: [.origin: "https://evil.example"])
    }
    try await expect(.forbidden) { browser, csrf in
      try await browser.post("/missions/visit/claim", form: "csrf=\(csrf)", headers: [.origin: "null"])
    }
    try await expect(.forbidden) { browser, csrf in
      var stranger = Browser(client: browser.client)
      let theirs = try await stranger.csrf(from: "/surveys/breakfast")
      #expect(theirs != csrf)
      return try await browser.post("/missions/visit/claim", form: "csrf=\(theirs)")
    }
    try await expect(.forbidden) { browser, csrf in
      browser.cookie = nil
      return try await browser.post("/missions/visit/claim", form: "csrf=\(csrf)")
    }
  }

  @Test func forgedCookiesStartAFreshUserAndNeverReachAPath() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      for forged in ["../../etc/passwd", "0123456789ABCDEF0123456789ABCDEF", String(repeating: "a", count: 4_000), "abc%00def", "\u{0}"] {
        var browser = Browser(client: client, cookie: "pointapp_session=\(forged)")
        let response = try await browser.get("/surveys")
        #expect(response.status == .ok)
        let fresh = try #require(browser.cookie)
        #expect(fresh.wholeMatch(of: /pointapp_session=[0-9a-f]{32}\.[0-9a-f]{16}/) != nil)
      }
      #expect(try server.files().isEmpty)
    }
  }

  /// Found by probing the server: the file system cut a path at an encoded NUL and served what
  /// came before it, as the type the rest named, or redirected to another host.
  @Test func aPathWithAControlCharacterIsNotFound() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      #expect(try await client.execute(uri: "/favicon.svg", method: .get).status == .ok)
      for path in ["/favicon.svg%00.html", "//%00evil.example", "/%00", "/favicon.svg%0a", "/surveys%00", "/surveys/sweets%7f", "/admin%00"] {
        let response = try await client.execute(uri: path, method: .get)
        #expect(response.status == .notFound, "\(path)")
        #expect(response.headers[.location] == nil && response.headers[.contentType] == "text/html; charset=utf-8", "\(path)")
        #expect(String(buffer: response.body).contains("ページが見つかりません"), "\(path)")
      }
    }
  }

  @Test func theSessionIsFoundAmongOtherCookiesAndOnlyUnderItsOwnName() {
    let id = "0123456789abcdef0123456789abcdef"
    #expect(Sessions.sessionCookie(named: Sessions.cookieName, in: ["theme=dark; pointapp_session=\(id); lang=ja"]) == id[...])
    #expect(Sessions.sessionCookie(named: Sessions.cookieName, in: ["theme=dark", "pointapp_session=\(id)"]) == id[...])
    #expect(Sessions.sessionCookie(named: Sessions.cookieName, in: ["pointapp_session_old=\(id); xpointapp_session=\(id)"]) == nil)
    #expect(Sessions.sessionCookie(named: Sessions.cookieName, in: ["pointapp_session"]) == nil)
    #expect(Sessions.sessionCookie(named: Sessions.cookieName, in: []) == nil)
  }

  @Test func staticFilesCannotEscapePublic() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      for path in ["/../Package.swift", "/%2e%2e/Package.swift", "/styles.css/../../Package.swift"] {
        let response = try await client.execute(uri: path, method: .get)
        #expect(response.status == .badRequest || response.status == .notFound, "\(path)")
        #expect(!String(buffer: response.body).contains("PackageDescription"), "\(path)")
      }
    }
  }
}

/// A backend whose disk fills up just when a survey reward is to be saved in a user's state.
struct FailingBackend: RecordBackend {
  struct DiskFull: Error {}
  let memory = MemoryBackend()

  func table(_ kind: RecordKind) -> any RecordStorage {
    kind == .users ? FailingTable(base: memory.table(kind)) : memory.table(kind)
  }

  func holding<Result: Sendable>(_ key: String, _ body: @Sendable () async throws -> Result) async throws -> Result {
    try await memory.holding(key, body)
  }

  struct FailingTable: RecordStorage {
    let base: any RecordStorage
    func check(_ data: Data) throws { if String(decoding: data, as: UTF8.self).contains("surveyReward") { throw DiskFull() } }
    func read(_ name: String) async throws -> (data: Data, version: Int64)? { try await base.read(name) }
    func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? { try await base.readForUpdate(name) }
    func create(_ name: String, _ data: Data) async throws -> Bool {
      try check(data)
      return try await base.create(name, data)
    }
    func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
      try check(data)
      return try await base.replace(name, data, at: version)
    }
    func delete(_ name: String, at version: Int64) async throws -> Bool { try await base.delete(name, at: version) }
    func names(after name: String?, limit: Int) async throws -> [String] { try await base.names(after: name, limit: limit) }
  }
}

struct FailedWriteTests {
  @Test func aFailedWriteIsA500PageNeverASuccess() async throws {
    let server = try TestServer()
    try await server.application(backend: FailingBackend()).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/sweets")
      let response = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(response.status == .internalServerError)
      #expect(response.html.contains("入力内容やポイントは保存されていません。"))
      #expect(!response.html.contains("DiskFull"))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">0pt</p>"#))
    }
  }
}
