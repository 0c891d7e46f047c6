import Foundation
import HummingbirdTesting
import PointApp
@testable import PointAppWeb
import Testing

/// Catalog text and answers reach pages escaped, never as markup.
struct EscapingTests {
  static let payload = #"<script>alert("x")</script><img src=x onerror=alert(1)>"#

  static let hostileCatalog: [Survey] = [
    Survey(
      id: SurveyID("hostile"), title: "題名\(payload)", description: "説明\(payload)", category: .food,
      questions: [
        SurveyQuestion(id: QuestionID("pick"), text: "質問\(payload)", kind: .singleChoice(choices: [
          .init(id: ChoiceID("a"), label: "選択肢\(payload)"), .init(id: ChoiceID("b"), label: "B"),
        ])),
        SurveyQuestion(id: QuestionID("free"), text: "自由回答", kind: .freeText(required: true, maxLength: 200)),
      ],
      reward: 10, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil
    )
  ]

  @Test func hostileCatalogTextAndAnswersAreEscapedOnEveryPage() async throws {
    let server = try TestServer()
    try await server.application(catalog: Self.hostileCatalog).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/hostile")
      let encoded = Self.payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
      let refused = try await browser.post("/surveys/hostile/answers", form: "csrf=\(csrf)&q%5Bfree%5D=\(encoded)")
      #expect(refused.headers[.location] == "/surveys/hostile")
      var pages = [try await browser.get("/surveys/hostile").html]
      _ = try await browser.post("/surveys/hostile/answers", form: "csrf=\(csrf)&q%5Bpick%5D=a&q%5Bfree%5D=\(encoded)")
      for uri in ["/surveys", "/surveys/hostile", "/surveys/hostile/complete", "/points", "/points/history", "/missions", "/exchange"] {
        pages.append(try await browser.get(uri).html)
      }
      for page in pages {
        #expect(!page.contains("<script>"))
        #expect(!page.contains("<img src=x"))
      }
      #expect(pages[0].contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
      #expect(pages.contains { $0.contains("題名&lt;script&gt;") })
    }
  }
}

/// The templates' escaper: the five HTML-special characters as entities, everything else as it
/// was, Japanese and emoji included.
struct HTMLEscapingTests {
  @Test func escapesTheFiveSpecialCharactersOnly() {
    #expect(HTMLEscaping.escape(#"<a href="x">Tom & Jerry's</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;")
    #expect(HTMLEscaping.escape("朝ごはんアンケート（100pt）🍙") == "朝ごはんアンケート（100pt）🍙")
    #expect(HTMLEscaping.escape("「<script>」") == "「&lt;script&gt;」")
    #expect(HTMLEscaping.escape("") == "")
  }
}
