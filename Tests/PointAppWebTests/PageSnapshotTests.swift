import Foundation
import HummingbirdTesting
import PointApp
import PointAppWeb
import SnapshotTesting
import Testing

/// Every page, rendered from fixed state and boundaries (clock, uuid, catalog, secret, session id),
/// pinned byte for byte. Record with SNAPSHOT_TESTING_RECORD=all; CI never records.
struct PageSnapshotTests {
  /// For women in their twenties in Tokyo: hidden from the list unless the profile fits.
  static let targeted = Survey(
    id: SurveyID("twenties"), title: "20代女性のライフスタイル調査", description: "東京都在住の20代女性の方へ", category: .lifestyle,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 80, estimatedMinutes: 2, publishedAt: noon - 86_400, expiresAt: nil,
    targeting: Targeting(minAge: 20, maxAge: 29, genders: [.female], prefectures: [.tokyo])
  )

  /// Asks whether the user drinks coffee before its own question.
  static let screened = Survey(
    id: SurveyID("coffee"), title: "コーヒーの飲み方調査", description: "毎日のコーヒーについて", category: .food,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 50, estimatedMinutes: 2, publishedAt: noon - 86_400 * 2, expiresAt: nil,
    screening: Screening(
      questions: [SurveyQuestion(id: QuestionID("drinks"), text: "コーヒーを飲みますか？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("daily"), label: "毎日"), .init(id: ChoiceID("never"), label: "飲まない"),
      ]))],
      qualifying: [QuestionID("drinks"): [ChoiceID("daily")]], consolation: 3
    )
  )

  /// A grid, a number, a long text and an attention check.
  static let panel = Survey(
    id: SurveyID("phone"), title: "スマートフォン満足度調査", description: "お使いのスマートフォンについて", category: .technology,
    questions: [
      SurveyQuestion(id: QuestionID("g1"), text: "各項目の満足度は？", kind: .grid(
        rows: [.init(id: "r1", label: "バッテリー"), .init(id: "r2", label: "カメラ"), .init(id: "r3", label: "料金", isOptional: true)],
        scale: [.init(id: ChoiceID("c1"), label: "満足"), .init(id: ChoiceID("c2"), label: "普通"), .init(id: ChoiceID("c3"), label: "不満"), .init(id: ChoiceID("c4"), label: "使っていない")]
      )),
      SurveyQuestion(id: QuestionID("n1"), text: "何年使っていますか？", kind: .number(min: 0, max: 20, unit: "年")),
      SurveyQuestion(id: QuestionID("t1"), text: "不満な点を教えてください", kind: .longText(minLength: 10, maxLength: 200)),
      SurveyQuestion(id: QuestionID("a1"), text: "この設問では「いいえ」を選んでください", kind: .attentionCheck(
        choices: [.init(id: ChoiceID("yes"), label: "はい"), .init(id: ChoiceID("no"), label: "いいえ")], expected: ChoiceID("no")
      )),
    ],
    reward: 70, estimatedMinutes: 4, publishedAt: noon - 86_400 * 2, expiresAt: nil
  )

  /// In two pages: why breakfast is skipped is asked of those who skip it. (Not shuffled here: an
  /// order follows from the respondent, whose id each run makes anew.)
  static let branching = Survey(
    id: SurveyID("morning"), title: "朝の過ごし方", description: "朝の習慣について", category: .lifestyle,
    questions: [
      SurveyQuestion(id: QuestionID("often"), text: "朝ごはんを食べますか？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("daily"), label: "ほぼ毎日"), .init(id: ChoiceID("rarely"), label: "ほとんど食べない"),
      ])),
      SurveyQuestion(
        id: QuestionID("why"), text: "食べない理由は？",
        kind: .multipleChoice(choices: [
          .init(id: ChoiceID("time"), label: "時間がない"), .init(id: ChoiceID("appetite"), label: "食欲がない"),
          .init(id: ChoiceID("diet"), label: "ダイエット中"), .init(id: ChoiceID("other"), label: "その他"),
        ], minPicks: 1, maxPicks: 4),
        condition: DisplayCondition(.all, [.init(question: QuestionID("often"), choices: [ChoiceID("rarely")])])
      ),
      SurveyQuestion(id: QuestionID("wake"), text: "朝の目覚めの満足度は？", kind: .rating),
    ],
    reward: 30, estimatedMinutes: 2, publishedAt: noon - 86_400, expiresAt: nil
  )

  @Test func everyPage() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [Self.targeted, Self.screened, Self.panel, QualityFlowTests.careful, Self.branching]).test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=0123456789abcdef0123456789abcdef")

      try await snapshot("/surveys", named: "surveys", with: &browser)
      try await snapshot("/surveys?category=food&sort=reward", named: "surveys-food-by-reward", with: &browser)
      try await snapshot("/surveys/breakfast", named: "survey", with: &browser)
      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfoods%5D=rice&q%5Bfoods%5D=bread&q%5Bfoods%5D=fruit&q%5Bcomment%5D=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
      try await snapshot("/surveys/breakfast", named: "survey-invalid", with: &browser)
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4")
      try await snapshot("/surveys/breakfast/complete", named: "complete", with: &browser)
      // A survey in pages: the first, then the one the answer calls for, with the way back.
      try await snapshot("/surveys/morning", named: "survey-page-1", with: &browser)
      let toSecond = try await browser.post("/surveys/morning/answers", form: "csrf=\(csrf)&version=1&page=0&q%5Boften%5D=rarely")
      #expect(toSecond.headers[.location] == "/surveys/morning")
      try await snapshot("/surveys/morning", named: "survey-page-2", with: &browser)
      try await snapshot("/surveys/breakfast", named: "survey-answered", with: &browser)
      try await snapshot("/points", named: "points", with: &browser)
      try await snapshot("/points/history", named: "history", with: &browser)
      try await snapshot("/missions", named: "missions", with: &browser)
      _ = try await browser.post("/missions/answerOne/claim", form: "csrf=\(csrf)")
      try await snapshot("/missions", named: "missions-claimed", with: &browser)
      try await snapshot("/exchange", named: "exchange", with: &browser)
      try await snapshot("/surveys/unknown", named: "error-404", with: &browser)
      try await snapshot("/register", named: "register", with: &browser)
      _ = try await browser.post("/login", form: "csrf=\(csrf)&email=hanako%40example.jp&password=wrong+password")
      try await snapshot("/login", named: "login-refused", with: &browser)
      try await snapshot("/password/forgot", named: "password-forgot", with: &browser)
      try await snapshot("/password/reset?token=\(String(repeating: "ab", count: 32))", named: "password-reset", with: &browser)
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      try await snapshot("/account", named: "account", with: &browser)
      let link = try #require(try await Mailbox.verificationToken(to: "hanako@example.jp", in: try FileBackend(server.dataDirectory), data: server.dataDirectory))
      try await snapshot("/account/verify?token=\(link)", named: "verify-address", with: &browser)
      try await browser.verifyAddress("hanako@example.jp", in: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      try await snapshot("/account", named: "account-verified", with: &browser)
      try await snapshot("/exchange/digital-gift-300", named: "exchange-confirmation", with: &browser)
      try await snapshot("/surveys/twenties", named: "survey-needs-profile", with: &browser)
      try await snapshot("/profile", named: "profile", with: &browser)
      let signedIn = try await browser.csrf(from: "/profile")
      _ = try await browser.post("/profile", form: "csrf=\(signedIn)&birthYear=19&gender=robot&prefecture=&occupation=student")
      try await snapshot("/profile", named: "profile-invalid", with: &browser)
      _ = try await browser.post("/profile", form: "csrf=\(signedIn)&birthYear=%EF%BC%91%EF%BC%99%EF%BC%98%EF%BC%90&gender=male&prefecture=osaka&occupation=selfEmployed")
      try await snapshot("/profile", named: "profile-saved", with: &browser)
      try await snapshot("/surveys/twenties", named: "survey-ineligible", with: &browser)
      try await snapshot("/surveys/coffee", named: "survey-screening", with: &browser)
      _ = try await browser.post("/surveys/coffee/screening", form: "csrf=\(signedIn)&q%5Bdrinks%5D=never")
      try await snapshot("/surveys/coffee/screened-out", named: "screened-out", with: &browser)
      try await snapshot("/surveys/phone", named: "survey-panel-questions", with: &browser)
      _ = try await browser.post("/surveys/phone/answers", form: "csrf=\(signedIn)&q%5Bg1%5D%5Br1%5D=c1&q%5Bn1%5D=%EF%BC%92%EF%BC%91&q%5Bt1%5D=short")
      try await snapshot("/surveys/phone", named: "survey-panel-questions-invalid", with: &browser)
      let paid = try await browser.post("/surveys/phone/answers", form: "csrf=\(signedIn)&q%5Bg1%5D%5Br1%5D=c1&q%5Bg1%5D%5Br2%5D=c3&q%5Bn1%5D=%EF%BC%92&q%5Bt1%5D=%E9%9B%BB%E6%B1%A0%E3%81%8C%E3%81%99%E3%81%90%E3%81%AB%E6%B8%9B%E3%82%8B%E3%81%93%E3%81%A8%E3%81%A7%E3%81%99&q%5Ba1%5D=no")
      #expect(paid.headers[.location] == "/surveys/phone/complete")
      let careless = "csrf=\(signedIn)&q%5Bg1%5D%5Br1%5D=c1&q%5Bg1%5D%5Br2%5D=c1&q%5Bn1%5D=3&q%5Bt1%5D=%E3%81%A8%E3%81%A6%E3%82%82%E8%89%AF%E3%81%84%E3%81%A8%E6%80%9D%E3%81%84%E3%81%BE%E3%81%99&q%5Ba1%5D=yes"
      _ = try await browser.post("/surveys/careful/answers", form: careless)
      try await snapshot("/surveys/careful", named: "survey-review-notice", with: &browser)
      _ = try await browser.post("/surveys/careful/answers", form: careless)
      try await snapshot("/surveys/careful/complete", named: "survey-answers-invalid", with: &browser)
    }
  }

  /// The points page with a rank and points about to expire; the exchange page at its limit; the
  /// list of requests (fulfilled, pending, refunded) and each one's page, the code in full.
  @Test func exchangePages() async throws {
    let server = try TestServer()
    let user = try #require(UserID("0123456789abcdef0123456789abcdef"))
    var state = AppFeature.State()
    var progress = UserProgress()
    func earn(_ id: String, _ reward: PointAmount, at date: Date) {
      let survey = Survey(id: SurveyID(id), title: id, description: "", category: .food, questions: [], reward: reward, estimatedMinutes: 1, publishedAt: date, expiresAt: nil)
      progress.recordAnswer(to: survey, with: [], id: TransactionID(UUID()), at: date, on: Day(date, in: .tokyo))
    }
    earn("december", 500, at: noon - 86_400 * 345)  // 2025-12-12: expires when December 2026 ends
    earn("january", 12_000, at: noon - 86_400 * 310)  // 2026-01-16: when January 2027 ends
    try progress.requestExchange(ExchangeOption.all[0], id: TransactionID(UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!), at: noon - 86_400 * 3)
    progress.failExchange(1, refundID: TransactionID(UUID(uuidString: "00000000-0000-0000-0000-0000000000a2")!), at: noon - 86_400 * 3 + 60)
    try progress.requestExchange(ExchangeOption.all[0], id: TransactionID(UUID(uuidString: "00000000-0000-0000-0000-0000000000a3")!), at: noon - 86_400 * 2)
    state.progress = progress
    try await server.users.replace(user, with: state)
    try await server.application(giftSource: StubGiftSource()).test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      try await browser.registerVerified(in: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      try await snapshot("/points", named: "points-rank-expiring", with: &browser)
      try await snapshot("/exchange", named: "exchange-with-history", with: &browser)
      let token = try await browser.csrf(from: "/exchange/digital-gift-300")
      let ledger = try await browser.hidden("ledger", from: "/exchange/digital-gift-300")
      let sent = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(token)&ledger=\(ledger)")
      #expect(sent.headers[.location] == "/exchange/history/3")
      // Fulfilled by the fulfiller once the form's update committed, before the form answered.
      try await snapshot("/exchange/history/3", named: "exchange-request-fulfilled", with: &browser)
      try await snapshot("/exchange/history/2", named: "exchange-request-pending", with: &browser)
      try await snapshot("/exchange/history/1", named: "exchange-request-failed", with: &browser)
      try await snapshot("/exchange/history", named: "exchange-history", with: &browser)
      try await snapshot("/exchange", named: "exchange-daily-limit", with: &browser)
    }
  }

  /// Five places left of a hundred: 残りわずか.
  static let nearlyFull = Survey(
    id: SurveyID("nearly"), title: "残りわずかの調査", description: "あと少しで締め切ります", category: .lifestyle,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 30, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil, quota: Quota(target: 100, collected: 95)
  )
  /// Its completes were all collected elsewhere: closed.
  static let full = Survey(
    id: SurveyID("full"), title: "定員に達した調査", description: "受付を終了しました", category: .lifestyle,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 30, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil, quota: Quota(target: 50, collected: 50)
  )
  /// The coffee screening, with one place.
  static let lastPlace = Survey(
    id: SurveyID("last"), title: "先着1名のコーヒー調査", description: "毎日のコーヒーについて", category: .food,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 50, estimatedMinutes: 2, publishedAt: noon - 86_400 * 2, expiresAt: nil,
    screening: screened.screening, quota: Quota(target: 1)
  )

  /// The list with places left and closed surveys; the closed page for a survey past its deadline,
  /// for a full one, and for a user who passed the screening before it filled.
  @Test func quotaPages() async throws {
    let server = try TestServer()
    try await server.application(catalog: testCatalog + [Self.nearlyFull, Self.full, Self.lastPlace]).test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=0123456789abcdef0123456789abcdef")
      try await snapshot("/surveys", named: "surveys-with-quotas", with: &browser)
      try await snapshot("/surveys/old", named: "survey-closed-deadline", with: &browser)
      try await snapshot("/surveys/full", named: "survey-closed-full", with: &browser)
      let csrf = try await browser.csrf(from: "/surveys/last")
      let qualified = try await browser.post("/surveys/last/screening", form: "csrf=\(csrf)&q%5Bdrinks%5D=daily")
      #expect(qualified.headers[.location] == "/surveys/last")
      _ = try await browser.get("/surveys/last")  // its questions, as a browser follows the redirect
      // Someone else takes the last place meanwhile.
      var other = Browser(client: client)
      let theirs = try await other.csrf(from: "/surveys/last")
      _ = try await other.post("/surveys/last/screening", form: "csrf=\(theirs)&q%5Bdrinks%5D=daily")
      let took = try await other.post("/surveys/last/answers", form: "csrf=\(theirs)&q%5Bsatisfaction%5D=4")
      #expect(took.headers[.location] == "/surveys/last/complete")
      let late = try await browser.post("/surveys/last/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      #expect(late.headers[.location] == "/surveys/last")
      try await snapshot("/surveys/last", named: "survey-closed-consolation", with: &browser)
    }
  }

  /// The console's pages: sign-in (and refused), the surveys of the shipped catalog seeded at
  /// noon with their states, one closed, and the audit log.
  @Test func consolePages() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = Browser.console(client)
      func pin(_ uri: String, _ name: String, line: UInt = #line) async throws {
        let html = try await console.get(uri).html
        assertSnapshot(of: pinned(html), as: .lines, named: name, testName: "page", line: line)
      }
      try await pin("/admin/login", "admin-login")
      try await pin("/admin/login?refused=1", "admin-login-refused")
      console = try await AdminTests.signIn(client, server)
      try await pin("/admin/surveys", "admin-surveys")
      // An error in the console's frame: its name, who is signed in, the way back to it.
      #expect(try await console.get("/admin/surveys/unknown/edit").status == .notFound)
      try await pin("/admin/surveys/unknown/edit", "admin-error-404")
      try await pin("/admin/surveys?state=open&q=food+%E6%9C%9D", "admin-surveys-narrowed")
      #expect(try await console.get("/admin/surveys?state=everything").status == .badRequest)
      let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
      _ = try await console.post("/admin/surveys/food-002/close", form: "csrf=\(csrf)")
      // A new survey's form, then refused with its mistakes, then whole and previewed.
      let edit = try #require(try await console.post("/admin/surveys/new", form: "csrf=\(csrf)").headers[.location])
      try await pin(edit, "admin-editor-new")
      _ = try await console.post(edit, form: SurveyEditorTests.encode([
        ("csrf", csrf), ("intent", "publish"), ("title", ""), ("reward", "0"), ("q.0.id", "q1"), ("q.0.kind", "attention"),
        ("q.0.choices", "はい\nいいえ"), ("q.1.id", "q2"), ("q.1.kind", "multiple"), ("q.1.screening", "1"), ("q.1.choices", "A\nB"),
        ("q.1.minPicks", "2"), ("q.1.maxPicks", "1"),
      ]))
      try await pin(edit, "admin-editor-mistakes")
      _ = try await console.post(edit, form: SurveyEditorTests.encode(SurveyEditorTests.fields(csrf: csrf, intent: "preview")))
      try await pin(edit.replacingOccurrences(of: "/edit", with: "/preview"), "admin-preview")
      try await pin("/admin/surveys/food-001/edit", "admin-editor-published")
      // A survey's dashboard with one response.
      var user = Browser(client: client)
      try await user.get("/surveys")
      let userCSRF = try user.csrf(in: try await user.get("/surveys/food-001"))
      _ = try await user.post("/surveys/food-001/answers", form: "csrf=\(userCSRF)&version=1&q%5Bq1%5D=q1-2&q%5Bq2%5D=q2-1&q%5Bq3%5D=4")
      try await pin("/admin/surveys/food-001", "admin-dashboard")
      try await pin("/admin/audit", "admin-audit")
    }
  }

  /// Pins the page at `uri`, as `browser` gets it, under `name`.
  func snapshot(
    _ uri: String, named name: String, with browser: inout Browser,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws {
    let html = try await browser.get(uri).html
    assertSnapshot(of: pinned(html), as: .lines, named: name, fileID: fileID, file: filePath, testName: "page", line: line, column: column)
  }

  /// A page without its stylesheet's version, which follows Public/styles.css rather than the
  /// state the page is rendered from (`SecurityHeadersTests` pins how it is made), and without
  /// its CSRF token, which follows the session's id, a random one after signing in
  /// (`BadInputTests` refuse any other token), and without a verification link's random token.
  func pinned(_ html: String) -> String {
    html.replacingOccurrences(of: #"styles\.css\?v=[0-9a-f]+"#, with: "styles.css?v=…", options: .regularExpression)
      .replacingOccurrences(of: #"name="(csrf|token)" value="[0-9a-f]+""#, with: #"name="$1" value="…""#, options: .regularExpression)
  }

  /// The list says why it is empty: nothing in the category, or the catalog could not be read.
  @Test func anEmptyListSaysWhy() async throws {
    let empty = "このカテゴリには回答できるアンケートがありません。"
    let failed = "アンケートを読み込めませんでした。"
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var browser = Browser(client: client)
      let listed = try await browser.get("/surveys").html
      #expect(!listed.contains(empty) && !listed.contains(failed))
      let none = try await browser.get("/surveys?category=entertainment").html
      #expect(none.contains(empty) && !none.contains(failed))
    }
    let broken = SurveyClient(
      fetchAll: { throw CatalogError(URLError(.cannotConnectToHost)) },
      fetchByCategory: { _ in throw CatalogError(URLError(.cannotConnectToHost)) },
      fetch: { _ in throw CatalogError(URLError(.cannotConnectToHost)) }
    )
    try await TestServer().application(surveyClient: broken).test(.router) { client in
      var browser = Browser(client: client)
      let page = try await browser.get("/surveys").html
      #expect(page.contains(failed) && !page.contains(empty))
    }
  }
}
