import Hummingbird
import PointApp

/// /surveys, /surveys/{id}, POST /surveys/{id}/answers, /surveys/{id}/complete.
struct SurveysController<Context: RequestContext> {
  let loop: RequestLoop

  func addRoutes(to router: Router<Context>) {
    router.page("/surveys") { request, context in
      let category = try request.uri.queryParameters["category"].map { raw throws(HTTPError) in
        guard let category = SurveyCategory(rawValue: String(raw)) else { throw HTTPError(.badRequest) }
        return category
      }
      let sort = try request.uri.queryParameters["sort"].map { raw throws(HTTPError) in
        guard let sort = SurveySort(rawValue: String(raw)) else { throw HTTPError(.badRequest) }
        return sort
      } ?? .newest
      return try await loop.page(request, context: context) { user in
        try await user.send(.surveyList(.pageRequested(category: category, sort: sort)))
        return .page("surveys", Pages.surveys(user.state, fragments: loop.renderer))
      }
    }

    router.page("/surveys/:id") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.page(request, context: context) { user in
        try await open(SurveyID(id), user)
        return .page("survey", Pages.survey(user.state, csrf: user.csrf))
      }
    }

    router.form("/surveys/:id/answers") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.form(request, context: context) { form, user in
        try await open(SurveyID(id), user)
        try await user.send(.surveyDetail(.submitButtonTapped(draft(from: form))))
        guard user.state.surveyDetailPage?.errors.isEmpty ?? false else {
          return .page("survey", Pages.survey(user.state, csrf: user.csrf), status: .unprocessableContent)
        }
        return .redirect("/surveys/\(id)/complete")
      }
    }

    router.page("/surveys/:id/complete") { request, context in
      let id = try context.parameters.require("id")
      return try await loop.page(request, context: context) { user in
        try await open(SurveyID(id), user)
        guard user.state.surveyDetail?.answered != nil else { return .redirect("/surveys/\(id)") }
        try await user.send(.missions(.pageRequested))
        return .page("complete", Pages.complete(user.state))
      }
    }
  }

  /// Loads a survey's page; an unknown or closed survey is a 404.
  private func open(_ id: SurveyID, _ user: UserContext) async throws {
    try await user.send(.surveyOpened(id))
    guard let page = user.state.surveyDetailPage, !page.notFound else { throw HTTPError(.notFound) }
    if page.loadFailed { throw HTTPError(.serviceUnavailable) }
  }

  /// The answers of a form: fields named `q[<question id>]`, each possibly repeated.
  private func draft(from form: FormBody) -> AnswerDraft {
    var draft: AnswerDraft = [:]
    for (name, value) in form.fields where name.hasPrefix("q[") && name.hasSuffix("]") {
      draft[QuestionID(String(name.dropFirst(2).dropLast())), default: []].append(value)
    }
    return draft
  }
}
