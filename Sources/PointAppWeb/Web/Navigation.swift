import Hummingbird
import PointApp

/// How the web shows where a user is. After a request's actions the root state's `destination`
/// maps to exactly one response: after a form, a 303 to the destination's URL (redirect-after-post
/// replaces a phone's navigation); for a page, the destination's page at its own URL (a page that
/// leads elsewhere, such as the completion page of a survey not answered yet, is a 303 there); a
/// refused form's page (422); or an error page (404, 503).
enum Navigation {
  /// What a request gets.
  enum Reply: Equatable {
    /// A page of `Pages`, with its status.
    case page(Page, HTTPResponse.Status)
    case redirect(String)
    case error(HTTPResponse.Status)
  }

  /// The pages, each with what it needs.
  enum Page: Equatable {
    case surveys
    case survey(Survey)
    case complete(Survey, UserProgress.AnsweredSurvey)
    case points
    case history
    case missions
    case exchange
  }

  /// The reply to a request for `path` (a form's when `isForm`) that led to `destination`.
  static func reply(to destination: AppFeature.Destination?, path: String, isForm: Bool) -> Reply {
    let (page, url): (Page, String)
    switch destination {
    case nil:
      // Every request's actions lead somewhere: a feature that forgot to say where is a bug.
      return .error(.internalServerError)
    case .notFound?:
      return .error(.notFound)
    case .unavailable?:
      return .error(.serviceUnavailable)
    case let .answersRefused(survey)?:
      return .page(.survey(survey), .unprocessableContent)
    case .surveyList?:
      (page, url) = (.surveys, "/surveys")
    case let .survey(survey)?:
      (page, url) = (.survey(survey), "/surveys/\(survey.id.rawValue)")
    case let .answerComplete(survey, answered)?, let .alreadyAnswered(survey, answered)?:
      (page, url) = (.complete(survey, answered), "/surveys/\(survey.id.rawValue)/complete")
    case .points?:
      (page, url) = (.points, "/points")
    case .history?:
      (page, url) = (.history, "/points/history")
    case .missions?:
      (page, url) = (.missions, "/missions")
    case .exchange?:
      (page, url) = (.exchange, "/exchange")
    }
    return isForm || url != path ? .redirect(url) : .page(page, .ok)
  }
}

extension Pages {
  /// A page's template and context, from the user's state.
  static func render(_ page: Navigation.Page, _ state: AppFeature.State, csrf: () -> String, renderer: PageRenderer) -> String {
    switch page {
    case .surveys: renderer.render("surveys", surveys(state, fragments: renderer))
    case let .survey(survey): renderer.render("survey", self.survey(state, survey: survey, csrf: csrf()))
    case let .complete(survey, answered): renderer.render("complete", complete(state, survey: survey, answered: answered))
    case .points: renderer.render("points", points(state))
    case .history: renderer.render("history", history(state))
    case .missions: renderer.render("missions", missionsPage(state, csrf: csrf()))
    case .exchange: renderer.render("exchange", exchange(state, csrf: csrf()))
    }
  }
}
