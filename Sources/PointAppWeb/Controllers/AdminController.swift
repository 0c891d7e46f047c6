import Foundation
import Hummingbird
import PointApp

/// The console, every URL under /admin, behind `OperatorGate`: /admin, /admin/login (a page whose
/// form posts to it), /admin/surveys, POST /admin/surveys/new, /admin/surveys/{id}/edit (a page
/// whose form posts to it), /admin/surveys/{id}/preview, POST /admin/surveys/{id}/publish, POST
/// /admin/surveys/{id}/duplicate, POST /admin/surveys/{id}/close, /admin/audit?from=, POST
/// /admin/logout.
struct AdminController {
  let loop: OperatorLoop

  func addRoutes(to router: Router<AppRequestContext>) {
    let admin = router.group("/admin").add(middleware: OperatorGate(sessions: loop.sessions) { [date = loop.dependencies.date] in date.now })

    admin.page("") { request, context in
      try await loop.page(request, context, .homeRequested)
    }

    admin.page("login") { request, context in
      try await loop.page(request, context, .loginPageRequested(refused: request.uri.queryParameters["refused"] == "1"))
    } form: { request, context in
      try await loop.form(request, context) { form in
        .loginSubmitted(email: try form.value("email"), password: Secret(try form.value("password")))
      }
    }

    admin.page("login/code") { request, context in
      let query = request.uri.queryParameters
      return try await loop.page(request, context, .secondFactorPageRequested(next: query["next"].map(String.init), refused: query["refused"] == "1"))
    } form: { request, context in
      try await loop.form(request, context) { form in
        .secondFactorSubmitted(code: Secret(try form.value("code")), next: try form.optionalValue("next"))
      }
    }

    admin.page("login/enrol") { request, context in
      try await loop.page(request, context, .enrolmentPageRequested(refused: request.uri.queryParameters["refused"] == "1"))
    } form: { request, context in
      try await loop.form(request, context) { form in .enrolmentSubmitted(code: try form.value("code")) }
    }

    admin.page("login/recovery-codes") { request, context in
      try await loop.page(request, context, .recoveryCodesPageRequested)
    } form: { request, context in
      try await loop.form(request, context) { _ in .recoveryCodesAcknowledged }
    }

    admin.page("operators") { request, context in
      let query = request.uri.queryParameters
      let outcome: OperatorTeam.Outcome? =
        if let done = query["done"] { try TeamNotice(rawValue: String(done)).map(OperatorTeam.Outcome.done) ?? { throw HTTPError(.badRequest) }() }
        else if let refused = query["refused"] { try TeamError(rawValue: String(refused)).map(OperatorTeam.Outcome.refused) ?? { throw HTTPError(.badRequest) }() }
        else { nil }
      return try await loop.page(request, context, .team(.pageRequested(outcome: outcome)))
    } form: { request, context in
      try await loop.form(request, context) { form in
        .team(.changeSubmitted(.add(email: try form.value("email"), role: try Self.role(from: form))))
      }
    }

    admin.form("operators/:id/role") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.form(request, context) { form in .team(.changeSubmitted(.changeRole(id: id, try Self.role(from: form)))) }
    }

    admin.form("operators/:id/disable") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.form(request, context) { _ in .team(.changeSubmitted(.disable(id: id))) }
    }

    admin.form("operators/:id/reset-second-factor") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.form(request, context) { _ in .team(.changeSubmitted(.resetSecondFactor(id: id))) }
    }

    admin.page("surveys") { request, context in
      // Narrowed by `state` (a state's name, or `draft`) and `q` (words of the id or title).
      let query = request.uri.queryParameters
      let status = query["state"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
      guard status.map({ wanted in SurveyListFilter.statuses.contains { $0.value == wanted } }) ?? true else {
        throw HTTPError(.badRequest, message: "unknown survey state")
      }
      let words = (try FormBody(parsing: request.uri.query ?? "").optionalValue("q") ?? "").trimmingCharacters(in: .whitespaces)
      guard words.count <= 100 else { throw HTTPError(.badRequest, message: "search too long") }
      return try await loop.page(request, context, .surveysPageRequested(SurveyListFilter(status: status, query: words)))
    }

    admin.form("surveys/new") { request, context in
      try await loop.form(request, context) { _ in .newSurveyButtonTapped }
    }

    admin.page("surveys/:id/edit") { request, context in
      try await loop.page(request, context, .editorRequested(SurveyID(try context.parameters.require("id"))))
    } form: { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request, context, large: true) { form in
        .editorSubmitted(id, try Self.surveyForm(from: form), try Self.intent(from: form))
      }
    }

    admin.page("surveys/:id/preview") { request, context in
      let query = request.uri.queryParameters
      // A page of a survey in pages, walked: its answers (and the other pages') in the query.
      var walk: PreviewWalk?
      if let text = query["page"].map(String.init) {
        guard let page = Int(text), (0...1_000).contains(page) else { throw HTTPError(.badRequest, message: "bad survey page") }
        // The query as a form's fields (names escaped too, `+` a space), as the page's GET form sends them.
        let fields = try FormBody(parsing: request.uri.query ?? "").fields
        walk = PreviewWalk(answers: SurveysController<AppRequestContext>.draft(from: fields), page: page, back: query["move"] == "back")
      }
      return try await loop.page(request, context, .previewRequested(
        SurveyID(try context.parameters.require("id")), mainQuestions: query["part"] == "main", walk: walk
      ))
    }

    admin.form("surveys/:id/publish") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request, context) { _ in .editorSubmitted(id, nil, .publish) }
    }

    admin.form("surveys/:id/duplicate") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request, context) { _ in .duplicateButtonTapped(id) }
    }

    admin.page("surveys/:id") { request, context in
      try await loop.page(request, context, .dashboardRequested(SurveyID(try context.parameters.require("id"))))
    }

    admin.page("surveys/:id/export") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.page(request, context, .exportPageRequested(id, try Self.export(.csv, from: request)))
    }

    for format in [ResponseExport.Format.csv, .jsonl] {
      admin.page("surveys/:id/responses.\(format.rawValue)") { request, context in
        let id = SurveyID(try context.parameters.require("id"))
        let export = try Self.export(format, from: request)
        // A cut export at another spelling of its address: to the one address first, so that it is
        // audited once, there.
        if export.cut != nil, request.uri.query != export.query {
          return Response.redirect(to: "/admin/surveys/\(id.rawValue)/responses.\(format.rawValue)?\(export.query)", type: .normal)
        }
        return try await loop.page(request, context, .exportRequested(id, export))
      }
      admin.page("surveys/:id/responses.\(format.rawValue).manifest.json") { request, context in
        let id = SurveyID(try context.parameters.require("id"))
        return try await loop.page(request, context, .exportPageRequested(id, try Self.export(format, from: request), manifest: true))
      }
    }

    admin.form("surveys/:id/close") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request, context) { _ in .closeSurveyButtonTapped(id) }
    }

    admin.page("audit") { request, context in
      try await loop.page(request, context, .auditPageRequested(cursor: request.uri.queryParameters["from"].map(String.init)))
    }

    admin.page("users") { request, context in
      let outcome = try Self.outcome(of: request)
      if outcome != nil { return try await loop.page(request, context, .desk(.waitingRequested(outcome: outcome))) }
      return try await loop.page(request, context, .desk(.searchRequested(request.uri.queryParameters["q"].map(String.init) ?? "")))
    }

    admin.page("users/:id") { request, context in
      let outcome = try Self.outcome(of: request)
      return try await loop.page(request, context, .desk(.dossierRequested(try context.parameters.require("id"), outcome: outcome)))
    }

    for (verb, approve) in [("approve", true), ("refuse", false)] {
      admin.form("adjustments/:id/\(verb)") { request, context in
        guard let id = UUID(uuidString: try context.parameters.require("id")) else { throw HTTPError(.notFound) }
        return try await loop.form(request, context) { _ in .desk(.adjustmentDecided(TransactionID(id), approve: approve)) }
      }
    }

    admin.form("users/:id/adjust") { request, context in
      let user = try context.parameters.require("id")
      return try await loop.form(request, context) { form in
        guard let id = UUID(uuidString: try form.value("id")) else { throw HTTPError(.badRequest) }
        return .desk(.actionSubmitted(user: user, .adjust(points: try form.value("points"), reason: try form.value("reason"), id: TransactionID(id))))
      }
    }

    for (verb, request) in [("approve", SupportDesk.Request.approveAnswer), ("confirm", SupportDesk.Request.confirmAnswer)] {
      admin.form("users/:id/answers/:survey/\(verb)") { httpRequest, context in
        let (user, survey) = (try context.parameters.require("id"), SurveyID(try context.parameters.require("survey")))
        return try await loop.form(httpRequest, context) { _ in .desk(.actionSubmitted(user: user, request(survey))) }
      }
    }

    for (verb, request) in [("retry", SupportDesk.Request.retryExchange), ("end", SupportDesk.Request.refundExchange)] {
      admin.form("users/:id/exchanges/:number/\(verb)") { httpRequest, context in
        let user = try context.parameters.require("id")
        guard let number = Int(try context.parameters.require("number")) else { throw HTTPError(.notFound) }
        return try await loop.form(httpRequest, context) { _ in .desk(.actionSubmitted(user: user, request(number))) }
      }
    }

    admin.form("logout") { request, context in
      try await loop.form(request, context) { _ in .logoutButtonTapped }
    }
  }

  /// What the desk's form before did, from the page's query (`done=` a notice, `refused=` a
  /// refusal); anything else is a 400.
  static func outcome(of request: Request) throws -> SupportOutcome? {
    let query = request.uri.queryParameters
    if let done = query["done"] { return try SupportNotice(rawValue: String(done)).map(SupportOutcome.done) ?? { throw HTTPError(.badRequest) }() }
    if let refused = query["refused"] { return try SupportError(rawValue: String(refused)).map(SupportOutcome.refused) ?? { throw HTTPError(.badRequest) }() }
    return nil
  }

  /// A role as a form names it (`administrator`, `editor`, `support`, `analyst`); anything else is
  /// a 400.
  static func role(from form: FormBody) throws -> OperatorRole {
    guard let role = OperatorRole(rawValue: try form.value("role")) else { throw HTTPError(.badRequest, message: "not a role") }
    return role
  }

  /// An export's filters: `outcome` (an outcome's name; empty: all), `from` and `to` (days as
  /// `2026-11-22`; empty: open), and its `cut` (`20261127-120000`, Tokyo; empty: not cut yet).
  /// Anything else is a 400.
  static func export(_ format: ResponseExport.Format, from request: Request) throws(HTTPError) -> ResponseExport {
    let query = request.uri.queryParameters
    func day(_ name: String) throws(HTTPError) -> Day? {
      guard let text = query[Substring(name)].map(String.init), !text.isEmpty else { return nil }
      guard let day = Day(iso: text) else { throw HTTPError(.badRequest, message: "not a day: \(name)") }
      return day
    }
    var outcome: SurveyResponse.Outcome?
    if let text = query["outcome"].map(String.init), !text.isEmpty {
      guard let named = SurveyResponse.Outcome(rawValue: text) else { throw HTTPError(.badRequest, message: "unknown outcome") }
      outcome = named
    }
    var cut: Date?
    if let text = query["cut"].map(String.init), !text.isEmpty {
      guard let moment = ResponseExport.cut(from: text) else { throw HTTPError(.badRequest, message: "not a cut") }
      cut = moment
    }
    return ResponseExport(format: format, outcome: outcome, from: try day("from"), through: try day("to"), cut: cut)
  }

  /// The editor's form: the survey's fields by name, each question's as `q.<n>.<field>`.
  static func surveyForm(from body: FormBody) throws(HTTPError) -> SurveyForm {
    var form = SurveyForm()
    func text(_ name: String) throws(HTTPError) -> String { try body.optionalValue(name) ?? "" }
    form.title = try text("title")
    form.description = try text("description")
    form.category = try text("category")
    form.reward = try text("reward")
    form.minutes = try text("minutes")
    form.publishAt = try text("publishAt")
    form.deadline = try text("deadline")
    form.quota = try text("quota")
    form.minAge = try text("minAge")
    form.maxAge = try text("maxAge")
    form.genders = body.fields.filter { $0.name == "genders" }.map(\.value)
    form.prefectures = body.fields.filter { $0.name == "prefectures" }.map(\.value)
    form.minSecondsPerQuestion = try text("minSecondsPerQuestion")
    form.consolation = try text("consolation")
    /// A field left empty is absent (`nil`), as in a draft saved before it existed.
    func optional(_ name: String) throws(HTTPError) -> String? {
      let value = try text(name)
      return value.isEmpty ? nil : value
    }
    form.shuffleQuestions = try text("shuffleQuestions") == "1" ? true : nil
    let dimensions = body.fields.filter { $0.name == "cellDimensions" }.map(\.value)
    form.cellDimensions = dimensions.isEmpty ? nil : dimensions
    form.cells = try optional("cells")
    let indices = Set(body.fields.compactMap { field -> Int? in
      let parts = field.name.split(separator: ".")
      return parts.count == 3 && parts[0] == "q" && parts[2] == "kind" ? Int(parts[1]) : nil
    }).sorted()
    guard indices.count <= 100 else { throw HTTPError(.badRequest, message: "too many questions") }
    for index in indices {
      func field(_ name: String) throws(HTTPError) -> String { try text("q.\(index).\(name)") }
      guard let kind = SurveyForm.Kind(rawValue: try field("kind")) else { throw HTTPError(.badRequest, message: "unknown question kind") }
      var question = SurveyForm.Question(id: try field("id"), kind: kind)
      question.isScreening = try field("screening") == "1"
      question.text = try field("text")
      question.choices = try field("choices")
      question.rows = try field("rows")
      question.minPicks = try field("minPicks")
      question.maxPicks = try field("maxPicks")
      question.isRequired = try field("optional") != "1"
      question.minLength = try field("minLength")
      question.maxLength = try field("maxLength")
      question.min = try field("min")
      question.max = try field("max")
      question.unit = try field("unit")
      question.shuffle = try field("shuffle") == "1" ? true : nil
      question.conditions = try optional("q.\(index).conditions")
      question.join = question.conditions == nil ? nil : try optional("q.\(index).join")
      form.questions.append(question)
    }
    return form
  }

  /// The editor's button: `save`, `preview`, `publish`, `discard`, `add` (of the kind chosen in
  /// `newKind`), `remove-<n>`, `up-<n>`, `down-<n>`.
  static func intent(from body: FormBody) throws(HTTPError) -> SurveyEditor.Intent {
    let intent = try body.value("intent")
    switch intent {
    case "save": return .save
    case "preview": return .preview
    case "publish": return .publish
    case "discard": return .discard
    case "add":
      guard let kind = SurveyForm.Kind(rawValue: try body.value("newKind")) else { throw HTTPError(.badRequest) }
      return .addQuestion(kind)
    default:
      let parts = intent.split(separator: "-")
      guard parts.count == 2, let index = Int(parts[1]) else { throw HTTPError(.badRequest, message: "unknown button") }
      switch parts[0] {
      case "remove": return .removeQuestion(index)
      case "up": return .moveQuestion(index, by: -1)
      case "down": return .moveQuestion(index, by: 1)
      default: throw HTTPError(.badRequest, message: "unknown button")
      }
    }
  }
}
