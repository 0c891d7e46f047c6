import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PointAppWeb
import Testing

/// Every response carries the security headers: pages, error pages, redirects, refused methods,
/// static files and HEAD alike.
struct SecurityHeadersTests {
  static let policy =
    "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"

  @Test func everyKindOfResponseCarriesThem() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let responses: [(String, TestResponse)] = [
        ("page", try await browser.get("/surveys")),
        ("form page", try await browser.get("/surveys/breakfast")),
        ("404 page", try await browser.get("/surveys/unknown")),
        ("redirect", try await browser.get("/")),
        ("405", try await browser.request("/points", method: .post)),
        ("stylesheet", try await browser.get("/styles.css")),
        ("HEAD", try await browser.request("/missions", method: .head)),
        ("healthz", try await browser.get("/healthz")),
      ]
      for (kind, response) in responses {
        #expect(response.headers[.contentSecurityPolicy] == Self.policy, "\(kind)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(kind)")
        #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin", "\(kind)")
        #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(kind)")
        #expect(response.headers[.strictTransportSecurity] == nil, "\(kind): plain HTTP")
      }
    }
  }

  @Test func behindHTTPSBrowsersAreToldToStayThere() async throws {
    let server = try TestServer()
    try await server.application(secureCookies: true).test(.router) { client in
      let response = try await client.execute(uri: "/surveys", method: .get)
      #expect(response.headers[.strictTransportSecurity] == "max-age=31536000")
    }
  }

  /// The CSP allows no inline style or script: no page may carry one, or browsers would drop it.
  @Test func noPageHasInlineStylesOrScripts() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4")
      for uri in ["/surveys", "/surveys/breakfast", "/surveys/breakfast/complete", "/points", "/points/history",
                  "/missions", "/exchange", "/exchange/digital-gift-300", "/nowhere"] {
        let html = try await browser.get(uri).html
        for inline in ["style=", "<style", "<script", "javascript:"] {
          #expect(!html.contains(inline), "\(uri) has \(inline)")
        }
        #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(uri) has an event handler")
      }
    }
  }

  /// The stylesheet is linked under a URL that changes with its content, and kept for a year.
  @Test func theStylesheetIsVersionedByItsContentAndCachedLong() async throws {
    let css = try Data(contentsOf: repositoryRoot.appendingPathComponent("Public/styles.css"))
    let url = PageRenderer.versionedURL("/styles.css", of: css)
    #expect(url != PageRenderer.versionedURL("/styles.css", of: css + Data(" ".utf8)), "a changed file gets a new URL")
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      #expect(try await browser.get("/surveys").html.contains(#"<link rel="stylesheet" href="\#(url)">"#))
      let stylesheet = try await browser.get(url)
      #expect(stylesheet.status == .ok)
      #expect(stylesheet.headers[.cacheControl] == "public, max-age=31536000, immutable")
      #expect(stylesheet.headers[.eTag] != nil && stylesheet.headers[.lastModified] != nil)
    }
  }

  /// The layout links the stylesheet through a partial made of its URL: a URL the template
  /// language would read as a tag is refused at start-up, not rendered as one on every page.
  @Test func aStylesheetURLWithBracesIsRefusedAtStartUp() async throws {
    let templates = repositoryRoot.appendingPathComponent("Templates")
    await #expect(throws: PageRenderer.TemplateError.self) {
      _ = try await PageRenderer(directory: templates, stylesheet: "/styles.css?v={{title}}")
    }
    let renderer = try await PageRenderer(directory: templates, stylesheet: "/styles.css?v=a&b")
    #expect(renderer.render("error", Pages.error(.notFound)).contains(#"<link rel="stylesheet" href="/styles.css?v=a&amp;b">"#))
  }
}
