import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import PointAppWeb
import Testing

/// A person's way through the app, with cookies and CSRF tokens as a browser sends them.
struct FlowTests {
  @Test func headAnswersAsGetWithoutABody() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let page = try await browser.request("/surveys", method: .head)
      #expect(page.status == .ok)
      #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
      #expect(page.body.readableBytes == 0)
      let form = try await browser.request("/surveys/sweets/answers", method: .head)
      #expect(form.status == .methodNotAllowed)
      #expect(form.headers[.allow] == "POST")
      #expect(form.body.readableBytes == 0)
      #expect(try await browser.request("/nowhere", method: .head).status == .notFound)
      #expect(try await browser.request("/styles.css", method: .head).status == .ok)
    }
  }

  @Test func aNewUserAnswersASurveyEarnsPointsAndClaimsAMission() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let root = try await browser.get("/")
      #expect(root.status == .seeOther)
      #expect(root.headers[.location] == "/surveys")

      let first = try await browser.get("/surveys")
      #expect(first.status == .ok)
      #expect(first.headers[.setCookie]?.contains("HttpOnly") == true)
      #expect(first.headers[.setCookie]?.contains("SameSite=Lax") == true)
      #expect(first.html.contains("朝ごはんアンケート") && first.html.contains("スイーツ調査"))
      // Past its deadline: listed as closed, after the open ones.
      let closed = try #require(first.html.range(of: "受付を終了したアンケート"))
      #expect(first.html.range(of: "終わった調査").map { $0.lowerBound > closed.lowerBound } == true)
      #expect(try server.files().isEmpty, "a first visit without a cookie saves nothing")

      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      #expect(try server.files().keys.contains { $0.hasSuffix(".json") }, "a returning visitor is saved")

      let refused = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bsatisfaction%5D=9")
      #expect(refused.status == .seeOther, "no page lives at a form's URL: Back never re-sends it")
      #expect(refused.headers[.location] == "/surveys/breakfast")
      for _ in 0..<2 {  // the page it leads to, and that page refreshed
        let again = try await browser.get("/surveys/breakfast")
        #expect(again.status == .ok)
        #expect(again.html.contains("回答してください。"))
        #expect(again.html.contains("1〜5で評価してください。"))
        #expect(again.html.contains(#"value="daily" checked"#), "the draft is shown again")
      }

      let answered = try await browser.post(
        "/surveys/breakfast/answers",
        form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bfoods%5D=fruit&q%5Bsatisfaction%5D=4&q%5Bcomment%5D=%E3%81%8A%E3%81%84%E3%81%97%E3%81%84"
      )
      #expect(answered.status == .seeOther)
      #expect(answered.headers[.location] == "/surveys/breakfast/complete")
      // A new state cookie with each save: Chrome then reloads, rather than restores, the pages
      // that Back returns to (its back/forward cache keeps no-store pages while cookies stay).
      let stateCookie = { (response: TestResponse) in response.headers[values: .setCookie].filter { $0.hasPrefix("pointapp_state=") } }
      #expect(stateCookie(answered).count == 1)

      let complete = try await browser.get("/surveys/breakfast/complete")
      #expect(!(try await browser.get("/surveys/breakfast").html.contains("回答してください。")), "the draft went with the answer")
      #expect(complete.html.contains("+40pt"))
      #expect(complete.html.contains("「朝ごはんアンケート」に回答しました。40ptを獲得しました！"))
      let again = try await browser.get("/surveys/breakfast/complete")
      #expect(!again.html.contains("獲得しました！"), "the flash is shown once")
      #expect(stateCookie(again).isEmpty, "a view that saves nothing changes no cookie")

      let points = try await browser.get("/points")
      #expect(points.html.contains(#"<p class="big">40pt</p>"#))

      let missions = try await browser.get("/missions")
      #expect(missions.html.contains("/missions/answerOne/claim"))
      let claim = try await browser.post("/missions/answerOne/claim", form: "csrf=\(csrf)")
      #expect(claim.status == .seeOther)
      #expect(claim.headers[.location] == "/missions")
      let claimed = try await browser.get("/missions")
      #expect(claimed.html.contains("ボーナス10ptを受け取りました。"))

      let twice = try await browser.post("/missions/answerOne/claim", form: "csrf=\(csrf)")
      #expect(twice.status == .seeOther)
      #expect(try await browser.get("/missions").html.contains("受け取り済みです。"))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">50pt</p>"#))
    }
  }

  @Test func answeringTwicePaysOnce() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/sweets")
      for _ in 0..<3 {
        let response = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
        #expect(response.status == .seeOther)
      }
      let history = try await browser.get("/points/history")
      #expect(history.html.components(separatedBy: "アンケート回答「スイーツ調査」").count == 2)
      #expect(try await browser.get("/points").html.contains(#"<p class="big">60pt</p>"#))
    }
  }

  @Test func everyPageAnswers() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      for uri in ["/surveys", "/surveys?category=food&sort=reward", "/surveys?sort=efficiency", "/surveys/breakfast",
                  "/points", "/points/history", "/points/history?page=3", "/missions", "/exchange"] {
        let response = try await browser.get(uri)
        #expect(response.status == .ok, "\(uri)")
        #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
        #expect(response.html.contains(#"<html lang="ja">"#), "\(uri)")
      }
      #expect(try await browser.get("/healthz").html == "ok")
      let css = try await browser.get("/styles.css")
      #expect(css.status == .ok)
      #expect(css.headers[.contentType]?.hasPrefix("text/css") == true)
    }
  }

  @Test func aCompletePageBeforeAnsweringLeadsToTheSurvey() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let response = try await browser.get("/surveys/sweets/complete")
      #expect(response.status == .seeOther)
      #expect(response.headers[.location] == "/surveys/sweets")
    }
  }

  @Test func aRequestThatChangesNothingWritesNothing() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      try await browser.get("/surveys")
      let file = try #require(try server.files().keys.first { $0.hasSuffix(".json") })
      let path = server.dataDirectory.appendingPathComponent("users/\(file)").path
      let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
      for uri in ["/surveys", "/points", "/missions", "/points/history?page=9"] {
        try await browser.get(uri)
      }
      let after = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
      #expect(inode != nil && inode == after, "every durable write renames a new file into place")
    }
  }

  @Test func aFormFromOurOwnOriginIsAccepted() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/missions")
      let response = try await browser.post(
        "/missions/visit/claim", form: "csrf=\(csrf)", headers: [.origin: "http://localhost"]
      )
      #expect(response.status == .seeOther)
    }
  }

  @Test func anExchangeIsConfirmedOnItsOwnPageAndPaidOnce() async throws {
    let server = try TestServer()
    let user = try #require(UserID("0123456789abcdef0123456789abcdef"))
    var state = AppFeature.State()
    var progress = UserProgress()
    let bonanza = Survey(
      id: SurveyID("gone"), title: "", description: "", category: .food, questions: [],
      reward: 6_500, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil
    )
    progress.recordAnswer(to: bonanza, with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo))
    state.progress = progress
    try await server.users.replace(user, with: state)
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      #expect(try await browser.get("/exchange/digital-gift-300").headers[.location] == "/login", "a guest signs in first")
      try await browser.registerVerified(in: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      #expect(try await browser.get("/exchange").html.contains(#"<a class="button primary" href="/exchange/digital-gift-300">交換する</a>"#))
      let confirmation = try await browser.get("/exchange/digital-gift-300")
      #expect(confirmation.status == .ok)
      #expect(confirmation.html.contains("デジタルギフト 300円分に交換しますか？"))
      #expect(confirmation.html.contains(#"<a class="button" href="/exchange">やめる</a>"#))
      let csrf = try await browser.csrf(from: "/exchange/digital-gift-300")
      let ledger = try await browser.hidden("ledger", from: "/exchange/digital-gift-300")
      #expect(ledger == "1")
      // The confirmation sent twice (a double click, Back, a second tab): one request.
      let sent = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=\(ledger)")
      #expect(sent.status == .seeOther)
      #expect(sent.headers[.location] == "/exchange/history/1")
      let again = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=\(ledger)")
      #expect(again.headers[.location] == "/exchange")
      #expect(try await browser.get("/exchange").html.contains("ポイントの残高が変わったため、交換しませんでした。"))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">3,500pt</p>"#), "the second is refused")
      // Its page shows the code a moment later (the fulfiller's), which the issuer stored for it;
      // the list shows it masked.
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
      let page = try await browser.get("/exchange/history/1").html
      let code = try #require(page.firstMatch(of: /<code>([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})<\/code>/)?.1)
      let issued = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("gift-codes").path)
      #expect(issued.filter { $0.hasPrefix("r-") }.count == 1 && issued.contains("c-\(CodeKeys.current.digest(of: GiftCode(String(code)))).json"))
      #expect(try ProviderExchangeTests.files(in: server.dataDirectory, containing: String(code)).isEmpty, "sealed at rest, named by digest")
      let list = try await browser.get("/exchange/history").html
      #expect(!list.contains(String(code)) && list.contains("••••-••••-••••-" + code.suffix(4)))
      #expect(list.contains("申請番号1 デジタルギフト 300円分"))
      for unknown in ["/exchange/history/2", "/exchange/history/0", "/exchange/history/-1", "/exchange/history/x"] {
        #expect(try await browser.get(unknown).status == .notFound, "\(unknown)")
      }
      let before = try server.files()
      #expect(try await browser.get("/exchange/yacht").status == .notFound)
      #expect(try server.files() == before)
    }
  }
}

/// The profile over HTTP: the form and where it leads, the bonus once, and the surveys it opens.
struct ProfileFlowTests {
  @Test func aProfileSentTwicePaysOnceAndOpensTheSurveysItTargets() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [PageSnapshotTests.targeted]).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      #expect(try await browser.get("/surveys").html.contains("プロフィールを登録</a>すると"))
      let closed = try await browser.get("/surveys/twenties")
      #expect(closed.status == .ok)
      #expect(closed.html.contains("回答するにはプロフィールの登録が必要です"))
      let csrf = try await browser.csrf(from: "/profile")
      // Refused: back to the form with the fields kept; nothing paid.
      let refused = try await browser.post("/profile", form: "csrf=\(csrf)&birthYear=abcd&gender=female&prefecture=tokyo&occupation=student")
      #expect(refused.status == .seeOther && refused.headers[.location] == "/profile")
      #expect(try await browser.get("/profile").html.contains(#"value="abcd""#))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">0pt</p>"#))
      let form = "csrf=\(csrf)&birthYear=2000&gender=female&prefecture=tokyo&occupation=student"
      for _ in 0..<2 {
        let saved = try await browser.post("/profile", form: form)
        #expect(saved.status == .seeOther && saved.headers[.location] == "/profile")
      }
      #expect(try await browser.get("/points").html.contains(#"<p class="big">50pt</p>"#))
      #expect(try await browser.get("/surveys").html.contains("/surveys/twenties"))
      #expect(try await browser.get("/surveys/twenties").html.contains("回答して80ptもらう"))
      // Moved away: the survey is closed to them again, and an answer sent anyway pays nothing.
      _ = try await browser.post("/profile", form: "csrf=\(csrf)&birthYear=2000&gender=female&prefecture=osaka&occupation=student")
      let answered = try await browser.post("/surveys/twenties/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=4")
      #expect(answered.headers[.location] == "/surveys/twenties")
      #expect(try await browser.get("/surveys/twenties").html.contains("このアンケートは対象外です"))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">50pt</p>"#))
    }
  }

  @Test func aProfileFormWithoutItsTokenIsRefusedAndChangesNothing() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      try await browser.get("/surveys")
      let forged = try await browser.post("/profile", form: "birthYear=2000&gender=female&prefecture=tokyo&occupation=student")
      #expect(forged.status == .forbidden)
      #expect(try await browser.get("/points").html.contains(#"<p class="big">0pt</p>"#))
    }
  }
}

/// 事前調査 over HTTP: screened out once whatever is sent again, or on to the survey's questions.
struct ScreeningFlowTests {
  @Test func aScreenOutPaysItsConsolationOnceThroughRefreshBackAndResending() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [PageSnapshotTests.screened]).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let page = try await browser.get("/surveys/coffee")
      #expect(page.html.contains("事前調査") && page.html.contains(#"action="/surveys/coffee/screening""#))
      let csrf = try await browser.csrf(from: "/surveys/coffee")
      // Its own question first: refused, back to the screening.
      let early = try await browser.post("/surveys/coffee/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(early.headers[.location] == "/surveys/coffee")
      let out = try await browser.post("/surveys/coffee/screening", form: "csrf=\(csrf)&q%5Bdrinks%5D=never")
      #expect(out.status == .seeOther && out.headers[.location] == "/surveys/coffee/screened-out")
      let result = try await browser.get("/surveys/coffee/screened-out")
      #expect(result.status == .ok && result.html.contains("今回は本調査の対象外でした") && result.html.contains("+3pt"))
      // Refresh, Back to the survey, the screening sent again with another answer, the answers sent.
      _ = try await browser.get("/surveys/coffee/screened-out")
      #expect(try await browser.get("/surveys/coffee").headers[.location] == "/surveys/coffee/screened-out")
      let again = try await browser.post("/surveys/coffee/screening", form: "csrf=\(csrf)&q%5Bdrinks%5D=daily")
      #expect(again.headers[.location] == "/surveys/coffee/screened-out")
      let answers = try await browser.post("/surveys/coffee/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(answers.headers[.location] == "/surveys/coffee/screened-out")
      #expect(try await browser.get("/points").html.contains(#"<p class="big">3pt</p>"#))
    }
  }

  @Test func aQualifyingScreeningLeadsToTheSurveysQuestions() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [PageSnapshotTests.screened]).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/coffee")
      let refused = try await browser.post("/surveys/coffee/screening", form: "csrf=\(csrf)")
      #expect(refused.headers[.location] == "/surveys/coffee")
      #expect(try await browser.get("/surveys/coffee").html.contains("回答してください。"))
      let passed = try await browser.post("/surveys/coffee/screening", form: "csrf=\(csrf)&q%5Bdrinks%5D=daily")
      #expect(passed.headers[.location] == "/surveys/coffee")
      let main = try await browser.get("/surveys/coffee")
      #expect(main.html.contains(#"action="/surveys/coffee/answers""#) && main.html.contains("回答して50ptもらう"))
      let done = try await browser.post("/surveys/coffee/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(done.headers[.location] == "/surveys/coffee/complete")
      #expect(try await browser.get("/points").html.contains(#"<p class="big">50pt</p>"#))
    }
  }
}

/// Careless answers over HTTP: sent back once with a polite notice, then recorded invalid.
struct QualityFlowTests {
  static let careful = Survey(
    id: SurveyID("careful"), title: "丁寧な回答のお願い調査", description: "時間をかけてお答えください", category: .lifestyle,
    questions: PageSnapshotTests.panel.questions, reward: 90, estimatedMinutes: 5, publishedAt: noon - 86_400, expiresAt: nil,
    quality: QualitySettings(minSecondsPerQuestion: 10)
  )

  @Test func carelessAnswersAreSentBackOnceThenRecordedInvalidAndUnpaid() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [Self.careful]).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/careful")
      // At once, with the attention check answered otherwise than asked: two checks fail.
      let form = "csrf=\(csrf)&q%5Bg1%5D%5Br1%5D=c1&q%5Bg1%5D%5Br2%5D=c1&q%5Bn1%5D=3&q%5Bt1%5D=%E3%81%A8%E3%81%A6%E3%82%82%E8%89%AF%E3%81%84%E3%81%A8%E6%80%9D%E3%81%84%E3%81%BE%E3%81%99&q%5Ba1%5D=yes"
      let first = try await browser.post("/surveys/careful/answers", form: form)
      #expect(first.headers[.location] == "/surveys/careful")
      let page = try await browser.get("/surveys/careful")
      #expect(page.html.contains("回答内容をご確認ください") && page.html.contains(#"value="yes" checked"#))
      #expect(try await browser.get("/points").html.contains(#"<p class="big">0pt</p>"#))
      let second = try await browser.post("/surveys/careful/answers", form: form)
      #expect(second.headers[.location] == "/surveys/careful/complete")
      let invalid = try await browser.get("/surveys/careful/complete")
      #expect(invalid.status == .ok && invalid.html.contains("今回の回答は無効となりました"))
      #expect(try await browser.get("/surveys/careful").headers[.location] == "/surveys/careful/complete")
      #expect(try await browser.get("/points").html.contains(#"<p class="big">0pt</p>"#))
    }
  }
}
