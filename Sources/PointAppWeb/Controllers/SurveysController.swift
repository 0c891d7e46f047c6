import Hummingbird
import PointApp

/// /surveys, /surveys/{id}, POST /surveys/{id}/screening, /surveys/{id}/screened-out,
/// POST /surveys/{id}/answers (a page of them, or 前のページへ, in a survey of several pages),
/// /surveys/{id}/complete.
struct SurveysController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/surveys") { request, _ in
      let category = try request.uri.queryParameters["category"].map { raw throws(HTTPError) in
        guard let category = SurveyCategory(rawValue: String(raw)) else { throw HTTPError(.badRequest) }
        return category
      }
      let sort = try request.uri.queryParameters["sort"].map { raw throws(HTTPError) in
        guard let sort = SurveySort(rawValue: String(raw)) else { throw HTTPError(.badRequest) }
        return sort
      } ?? .newest
      return try await loop.page(request, .surveyList(.pageRequested(category: category, sort: sort)))
    }

    router.page("/surveys/:id") { request, context in
      try await loop.page(request, .surveyOpened(SurveyID(try context.parameters.require("id"))))
    }

    router.form("/surveys/:id/answers") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request) { form in
        let (draft, version, page) = (draft(from: form), try version(in: form), try page(in: form))
        // 前のページへ (the form's second button) keeps the page's answers unchecked.
        if try form.optionalValue("move") == "back", let page { return .answersPageBack(id, draft, version: version, page: page) }
        return .answersSubmitted(id, draft, version: version, page: page)
      }
    }

    router.form("/surveys/:id/screening") { request, context in
      let id = SurveyID(try context.parameters.require("id"))
      return try await loop.form(request) { form in .screeningSubmitted(id, draft(from: form), version: try version(in: form)) }
    }

    router.page("/surveys/:id/screened-out") { request, context in
      try await loop.page(request, .screeningResultOpened(SurveyID(try context.parameters.require("id"))))
    }

    router.page("/surveys/:id/complete") { request, context in
      try await loop.page(request, .surveyCompletionOpened(SurveyID(try context.parameters.require("id"))))
    }
  }

  /// The survey version the form's page showed (`version`); absent: unsaid; not a number: 400.
  private func version(in form: FormBody) throws(HTTPError) -> Int? {
    guard let text = try form.optionalValue("version") else { return nil }
    guard let version = Int(text), version > 0 else { throw HTTPError(.badRequest, message: "bad survey version") }
    return version
  }

  /// The page of a survey's questions the form showed (`page`, from 0); absent: the whole survey;
  /// not a number: 400.
  private func page(in form: FormBody) throws(HTTPError) -> Int? {
    guard let text = try form.optionalValue("page") else { return nil }
    guard let page = Int(text), (0...1_000).contains(page) else { throw HTTPError(.badRequest, message: "bad survey page") }
    return page
  }

  /// The answers of a form: fields named `q[<question id>]`, each possibly repeated; a grid's rows
  /// as `q[<question id>][<row id>]`, kept as `<row id>:<choice>` under the question.
  private func draft(from form: FormBody) -> AnswerDraft {
    Self.draft(from: form.fields.map { (name: $0.name, value: $0.value) })
  }

  /// The answers of named fields (a form's, or a preview's query).
  static func draft(from fields: [(name: String, value: String)]) -> AnswerDraft {
    var draft: AnswerDraft = [:]
    for (name, value) in fields where name.hasPrefix("q[") && name.hasSuffix("]") {
      let inner = name.dropFirst(2).dropLast()
      if let split = inner.range(of: "][") {
        let row = String(inner[split.upperBound...])
        draft[QuestionID(String(inner[..<split.lowerBound])), default: []].append(SurveyQuestion.gridInput(row: row, choice: value))
      } else {
        draft[QuestionID(String(inner)), default: []].append(value)
      }
    }
    return draft
  }
}
