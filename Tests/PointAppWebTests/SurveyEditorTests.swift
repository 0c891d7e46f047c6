import Foundation
import Hummingbird
import HummingbirdTesting
import PointApp
import Testing

@testable import PointAppWeb

/// The survey editor through HTTP, as an operator's browser and a user's use it: a new survey
/// drafted, refused with its mistakes, previewed, published, answered, edited into a second
/// version while a user is mid-survey.
struct SurveyEditorTests {
  /// A form as a browser sends it.
  static func encode(_ fields: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._*")
    return fields.map { name, value in
      "\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)=\(value.addingPercentEncoding(withAllowedCharacters: allowed)!)"
    }.joined(separator: "&")
  }

  /// A whole survey: a single choice and a grid, a quota of 3.
  static func fields(title: String = "朝食アンケート", csrf: String, intent: String) -> [(String, String)] {
    [
      ("csrf", csrf), ("intent", intent), ("newKind", "single"),
      ("title", title), ("description", "毎朝の食事について"), ("category", "food"),
      ("reward", "40"), ("minutes", "3"), ("publishAt", "2026-11-22T09:00"), ("deadline", "2026-12-31T23:59"),
      ("quota", "3"), ("minAge", ""), ("maxAge", ""), ("minSecondsPerQuestion", ""), ("consolation", ""),
      ("q.0.id", "q1"), ("q.0.kind", "single"), ("q.0.text", "朝食を食べますか？"), ("q.0.choices", "毎日\nときどき\n食べない"),
      ("q.1.id", "q2"), ("q.1.kind", "grid"), ("q.1.text", "それぞれの満足度は？"), ("q.1.rows", "味\n値段\n量（任意）"),
      ("q.1.choices", "満足\n普通\n不満"),
    ]
  }

  @Test func anOperatorDraftsPreviewsAndPublishesASurveyThatAUserThenAnswers() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = try await AdminTests.signIn(client, server)
      let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
      let created = try await console.post("/admin/surveys/new", form: "csrf=\(csrf)")
      #expect(created.status == .seeOther)
      let edit = try #require(created.headers[.location])
      #expect(edit.hasPrefix("/admin/surveys/s-") && edit.hasSuffix("/edit"))
      let id = String(edit.dropFirst("/admin/surveys/".count).dropLast("/edit".count))
      let blank = try await console.get(edit)
      #expect(blank.status == .ok)
      #expect(blank.html.contains("新しいアンケート"))
      #expect(try await console.get("/admin/surveys").html.contains("下書き"))

      // Published empty: refused, each mistake at its field; nothing reaches users.
      let refused = try await console.post(edit, form: Self.encode([("csrf", csrf), ("intent", "publish"), ("q.0.id", "q1"), ("q.0.kind", "single")]))
      #expect(refused.headers[.location] == edit)
      let mistakes = try await console.get(edit).html
      #expect(mistakes.contains("タイトルを入力してください"))
      #expect(mistakes.contains("選択肢を2つ以上、1行に1つずつ入力してください"))
      #expect(mistakes.contains(#"aria-invalid="true""#))
      var user = Browser(client: client)
      #expect(try await user.get("/surveys/\(id)").status == .notFound, "a draft is no page of the users'")

      // Questions are added, moved and removed with buttons that send the whole form.
      _ = try await console.post(edit, form: Self.encode(Self.fields(csrf: csrf, intent: "add")))
      #expect(try await console.get(edit).html.contains("設問3"))
      _ = try await console.post(edit, form: Self.encode(Self.fields(csrf: csrf, intent: "up-1") + [("q.2.id", "q3"), ("q.2.kind", "single")]))
      let moved = try await console.get(edit).html
      let grid = try #require(moved.range(of: "それぞれの満足度は？")), single = try #require(moved.range(of: "朝食を食べますか？"))
      #expect(grid.lowerBound < single.lowerBound, "the grid moved up")
      _ = try await console.post(edit, form: Self.encode(Self.fields(csrf: csrf, intent: "remove-2") + [("q.2.id", "q3"), ("q.2.kind", "single")]))
      #expect(!(try await console.get(edit).html.contains("設問3")))

      // The preview is the users' page of it.
      let previewing = try await console.post(edit, form: Self.encode(Self.fields(csrf: csrf, intent: "preview")))
      #expect(previewing.headers[.location] == "/admin/surveys/\(id)/preview")
      let preview = try await console.get("/admin/surveys/\(id)/preview").html
      #expect(preview.contains("プレビュー") && preview.contains("朝食アンケート") && preview.contains("量<span class=\"muted\">（任意）</span>"))
      #expect(preview.contains("回答して40ptもらう"))

      let published = try await console.post("/admin/surveys/\(id)/publish", form: "csrf=\(csrf)")
      #expect(published.headers[.location] == "/admin/surveys")
      let list = try await console.get("/admin/surveys").html
      #expect(list.contains("朝食アンケート") && list.contains("第1版") && list.contains("公開中"))
      #expect(try await console.get("/admin/audit").html.contains("アンケートを公開"))

      // A user sees it and answers it.
      #expect(try await user.get("/surveys").html.contains("朝食アンケート"))
      let page = try await user.get("/surveys/\(id)").html
      #expect(page.contains(#"name="version" value="1""#))
      let userCSRF = try user.csrf(in: try await user.get("/surveys/\(id)"))
      let answers = Self.encode([
        ("csrf", userCSRF), ("version", "1"), ("q[q1]", "c1"), ("q[q2][r1]", "c1"), ("q[q2][r2]", "c2"),
      ])
      let answered = try await user.post("/surveys/\(id)/answers", form: answers)
      #expect(answered.headers[.location] == "/surveys/\(id)/complete")
      #expect(try await user.get("/points").html.contains("<span>保有</span>40pt"))
    }
  }

  /// The preview of a survey in pages is walked as a respondent walks it, by GET (a preview keeps
  /// nothing): the page its answers call for next, with the other pages' answers carried; back
  /// again; the last page's button stays off. A condition on a later question is refused.
  @Test func thePreviewOfASurveyInPagesIsWalkedPageByPage() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = try await AdminTests.signIn(client, server)
      let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
      let edit = try #require(try await console.post("/admin/surveys/new", form: "csrf=\(csrf)").headers[.location])
      let id = String(edit.dropFirst("/admin/surveys/".count).dropLast("/edit".count))
      // The grid asked only of those who eat breakfast every day.
      let logic = Self.fields(csrf: csrf, intent: "preview") + [
        ("q.1.conditions", "q1: 毎日"), ("q.1.join", "all"), ("cellDimensions", "gender"), ("cells", "女性 = 2\n男性 = 1"),
      ]
      let later = Self.fields(csrf: csrf, intent: "publish") + [("q.0.conditions", "q2 味: 満足"), ("q.0.join", "all")]
      #expect(try await console.post(edit, form: Self.encode(later)).headers[.location] == edit)
      #expect(try await console.get(edit).html.contains("設問1の表示条件が、後ろにある設問2を参照しています"))
      #expect(try await console.post(edit, form: Self.encode(logic)).headers[.location] == "/admin/surveys/\(id)/preview")

      let first = try await console.get("/admin/surveys/\(id)/preview").html
      #expect(first.contains("1 / 2ページ") && first.contains(#"<form method="get" action="/admin/surveys/\#(id)/preview""#))
      #expect(first.contains("朝食を食べますか？") && !first.contains("それぞれの満足度は？"))
      #expect(first.contains(#"class="button primary">次のページへ"#), "the next page's button works in a preview")
      let second = try await console.get("/admin/surveys/\(id)/preview?part=main&page=0&q%5Bq1%5D=c1").html
      #expect(second.contains("2 / 2ページ") && second.contains("それぞれの満足度は？") && !second.contains("朝食を食べますか？"))
      #expect(second.contains(#"<input type="hidden" name="q[q1]" value="c1">"#), "the first page's answer carried")
      #expect(second.contains(#"disabled>回答して40ptもらう"#), "a preview takes no answer")
      let back = try await console.get("/admin/surveys/\(id)/preview?part=main&page=1&move=back&q%5Bq1%5D=c1&q%5Bq2%5D%5Br1%5D=c2").html
      #expect(back.contains("1 / 2ページ") && back.contains(#"value="c1" checked"#), "back, the answer kept")
      #expect(back.contains(#"<input type="hidden" name="q[q2][r1]" value="c2">"#), "the grid's answer carried as its row")
      // Those who do not eat it daily have one page: nothing more to show.
      let skipped = try await console.get("/admin/surveys/\(id)/preview?part=main&page=0&q%5Bq1%5D=c3").html
      #expect(!skipped.contains("それぞれの満足度は？"))
      #expect(try await console.get("/admin/surveys/\(id)/preview?page=x").status == .badRequest)
      // Published, its cells on the dashboard.
      #expect(try await console.post("/admin/surveys/\(id)/publish", form: "csrf=\(csrf)").headers[.location] == "/admin/surveys")
      let dashboard = try await console.get("/admin/surveys/\(id)").html
      #expect(dashboard.contains("割付 女性") && dashboard.contains("0件 / 上限2件"), "each cell on the dashboard")
    }
  }

  @Test func anEditPublishesTheNextVersionAndSomeoneMidSurveyIsSentBackUnpaid() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = try await AdminTests.signIn(client, server)
      var user = Browser(client: client)
      let before = try await user.get("/surveys/food-001").html
      #expect(before.contains(#"name="version" value="1""#))
      let userCSRF = try user.csrf(in: try await user.get("/surveys/food-001"))

      // The operator changes the title and publishes: the second version.
      let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
      let editor = try await console.get("/admin/surveys/food-001/edit").html
      #expect(editor.contains("第1版") && editor.contains("第2版"))
      let survey = try #require(try await TestServer.catalogStore(of: server).surveys.first { $0.id.rawValue == "food-001" })
      var form = SurveyForm(survey)
      form.title += "（改訂）"
      _ = try await console.post("/admin/surveys/food-001/edit", form: Self.encode(Self.fields(of: form, csrf: csrf, intent: "publish")))
      #expect(try await console.get("/admin/surveys").html.contains("第2版"))

      // The user's page was the first version's: nothing is taken, nothing paid, the answers kept.
      let answers = survey.questions.map { question -> (String, String) in
        switch question.kind {
        case let .singleChoice(choices), let .multipleChoice(choices, _, _): ("q[\(question.id.rawValue)]", choices[0].id.rawValue)
        default: ("q[\(question.id.rawValue)]", "3")
        }
      }
      let sentBack = try await user.post("/surveys/food-001/answers", form: Self.encode([("csrf", userCSRF), ("version", "1")] + answers))
      #expect(sentBack.headers[.location] == "/surveys/food-001")
      let again = try await user.get("/surveys/food-001").html
      #expect(again.contains("このアンケートは内容が更新されました"))
      #expect(again.contains(#"name="version" value="2""#))
      #expect(try await user.get("/points").html.contains("<span>保有</span>0pt"), "nothing paid")
      let paid = try await user.post("/surveys/food-001/answers", form: Self.encode([("csrf", userCSRF), ("version", "2")] + answers))
      #expect(paid.headers[.location] == "/surveys/food-001/complete")

      // The first version is kept as it was published; the answer names the second.
      let store = try await TestServer.catalogStore(of: server)
      #expect(try await store.version(1, of: SurveyID("food-001"))?.title == survey.title)
      #expect(try await store.surveys.first { $0.id.rawValue == "food-001" }?.version == 2)
    }
  }

  /// Forged or broken editor forms get a 4xx page and change nothing: no draft, no version.
  @Test func aBrokenOrForgedEditorFormChangesNothing() async throws {
    let server = try await AdminTests.server()
    try await server.application(storeCatalog: true).test(.router) { client in
      var console = try await AdminTests.signIn(client, server)
      let csrf = try console.csrf(in: try await console.get("/admin/surveys"))
      let survey = try #require(try await TestServer.catalogStore(of: server).surveys.first { $0.id.rawValue == "food-001" })
      let whole = Self.fields(of: SurveyForm(survey), csrf: csrf, intent: "publish")
      let cases: [(String, String, HTTPResponse.Status)] = [
        ("an unknown button", Self.encode(whole.map { $0.0 == "intent" ? ($0.0, "explode") : $0 }), .badRequest),
        ("a button with no number", Self.encode(whole.map { $0.0 == "intent" ? ($0.0, "remove-x") : $0 }), .badRequest),
        ("an unknown kind of question", Self.encode(whole.map { $0.0 == "q.0.kind" ? ($0.0, "essay") : $0 }), .badRequest),
        ("a title sent twice", Self.encode(whole + [("title", "二つ目")]), .badRequest),
        ("no CSRF token", Self.encode(whole.filter { $0.0 != "csrf" }), .forbidden),
        ("a body over the limit", Self.encode(whole + [("description", String(repeating: "あ", count: 200_000))]), .contentTooLarge),
      ]
      for (what, form, status) in cases {
        #expect(try await console.post("/admin/surveys/food-001/edit", form: form).status == status, "\(what)")
      }
      let crossSite = try await console.post("/admin/surveys/food-001/edit", form: Self.encode(whole), headers: [.origin: "https://evil.example"])
      #expect(crossSite.status == .forbidden)
      let store = try await TestServer.catalogStore(of: server)
      #expect(store.surveys.first { $0.id.rawValue == "food-001" } == survey, "no version was published")
      #expect(try await store.allDrafts().isEmpty, "no draft was saved")
      #expect(try await console.get("/admin/surveys/nope/edit").status == .notFound)
      #expect(try await console.get("/admin/surveys/nope/preview").status == .notFound)
    }
  }

  /// The form fields of `form`, as the editor's page would send them.
  static func fields(of form: SurveyForm, csrf: String, intent: String) -> [(String, String)] {
    var fields: [(String, String)] = [
      ("csrf", csrf), ("intent", intent), ("title", form.title), ("description", form.description), ("category", form.category),
      ("reward", form.reward), ("minutes", form.minutes), ("publishAt", form.publishAt), ("deadline", form.deadline),
      ("quota", form.quota), ("minAge", form.minAge), ("maxAge", form.maxAge),
      ("minSecondsPerQuestion", form.minSecondsPerQuestion), ("consolation", form.consolation),
    ]
    fields += form.genders.map { ("genders", $0) } + form.prefectures.map { ("prefectures", $0) }
    fields += (form.cellDimensions ?? []).map { ("cellDimensions", $0) }
    if let cells = form.cells { fields.append(("cells", cells)) }
    if form.shuffleQuestions == true { fields.append(("shuffleQuestions", "1")) }
    for (index, question) in form.questions.enumerated() {
      let prefix = "q.\(index)."
      fields += [
        (prefix + "id", question.id), (prefix + "kind", question.kind.rawValue), (prefix + "text", question.text),
        (prefix + "choices", question.choices), (prefix + "rows", question.rows), (prefix + "minPicks", question.minPicks),
        (prefix + "maxPicks", question.maxPicks), (prefix + "minLength", question.minLength), (prefix + "maxLength", question.maxLength),
        (prefix + "min", question.min), (prefix + "max", question.max), (prefix + "unit", question.unit),
      ]
      if question.isScreening { fields.append((prefix + "screening", "1")) }
      if !question.isRequired { fields.append((prefix + "optional", "1")) }
      if question.shuffle == true { fields.append((prefix + "shuffle", "1")) }
      if let conditions = question.conditions { fields += [(prefix + "conditions", conditions), (prefix + "join", question.join ?? "all")] }
    }
    return fields
  }
}

extension TestServer {
  /// The catalog in a test server's data folder, as another instance would read it.
  static func catalogStore(of server: TestServer) async throws -> CatalogStore {
    let store = CatalogStore(try FileRecordStorage(server.dataDirectory.appendingPathComponent("catalog")))
    try await store.refresh()
    return store
  }
}
