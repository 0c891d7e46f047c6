import Composable
import Hummingbird
import PointApp

/// How the web shows where a user is. After a request's actions the root state's `destination`
/// maps to exactly one response: after a form, a 303 to the destination's URL (redirect-after-post
/// replaces a phone's navigation); for a page, the destination's page at its own URL (a page that
/// leads elsewhere, such as the completion page of a survey not answered yet, is a 303 there); or
/// an error page (404, 503). A refused form leads back to its page, which shows the kept draft:
/// no page lives at a POST's URL, so Back and Refresh never ask to send a form again.
enum Navigation {
  /// What a request gets: a page of `Pages` (a user's, or an operator's), a 303, an error page.
  enum Reply<Page: Equatable>: Equatable {
    case page(Page)
    case redirect(String)
    case error(HTTPResponse.Status)
  }

  /// The pages, each with what it needs.
  enum Page: Equatable {
    case surveys
    case survey(Survey)
    /// 対象外: a survey not meant for the user, at its own URL.
    case surveyIneligible(Survey, Eligibility)
    case complete(Survey, UserProgress.AnsweredSurvey)
    /// 今回は対象外でした: a screening that did not qualify, and its consolation.
    case screenedOut(Survey, UserProgress.AnsweredSurvey)
    /// Answers recorded invalid: unpaid, said plainly.
    case answerInvalid(Survey, UserProgress.AnsweredSurvey)
    /// 受付終了: a survey that takes no more answers, at its own URL.
    case surveyClosed(Survey, Survey.Closure)
    case points
    case history
    case missions
    case exchange
    case exchangeHistory
    case exchangeRequest(ExchangeRequest)
    case profile
    case signIn(SignInForm.Kind)
    case account
    case notificationSettings
    case withdraw
    case withdrawn
    case confirmAddressChange(token: String)
    case verifyAddress(token: String)
    case passwordForgot
    case passwordReset(token: String)
    /// An alert as a page: its buttons with actions are forms, one without leads to `cancel`.
    case confirmation(AlertState<AppFeature.Action>, cancel: String)
  }

  /// The reply to a request for `path` (a form's when `isForm`) that led to `destination`.
  static func reply(to destination: AppFeature.Destination?, path: String, isForm: Bool) -> Reply<Page> {
    let (page, url): (Page, String)
    switch destination {
    case nil:
      // Every request's actions lead somewhere: a feature that forgot to say where is a bug.
      return .error(.internalServerError)
    case .notFound?:
      return .error(.notFound)
    case .unavailable?:
      return .error(.serviceUnavailable)
    case .tooManyAttempts?:
      return .error(.tooManyRequests)
    case .surveyList?:
      (page, url) = (.surveys, "/surveys")
    case let .survey(survey)?:
      (page, url) = (.survey(survey), "/surveys/\(survey.id.rawValue)")
    case let .surveyIneligible(survey, eligibility)?:
      (page, url) = (.surveyIneligible(survey, eligibility), "/surveys/\(survey.id.rawValue)")
    case let .surveyClosed(survey, closure)?:
      (page, url) = (.surveyClosed(survey, closure), "/surveys/\(survey.id.rawValue)")
    case let .screenedOut(survey, answered)?:
      (page, url) = (.screenedOut(survey, answered), "/surveys/\(survey.id.rawValue)/screened-out")
    case let .answerInvalid(survey, answered)?:
      (page, url) = (.answerInvalid(survey, answered), "/surveys/\(survey.id.rawValue)/complete")
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
    case .exchangeHistory?:
      (page, url) = (.exchangeHistory, "/exchange/history")
    case let .exchangeRequest(request)?:
      (page, url) = (.exchangeRequest(request), "/exchange/history/\(request.number)")
    case .profile?:
      (page, url) = (.profile, "/profile")
    case .register?:
      (page, url) = (.signIn(.register), "/register")
    case .login?:
      (page, url) = (.signIn(.logIn), "/login")
    case .account?:
      (page, url) = (.account, "/account")
    case .notificationSettings?:
      (page, url) = (.notificationSettings, "/account/notifications")
    case let .confirmAddressChange(token)?:
      (page, url) = (.confirmAddressChange(token: token.value), "/account/email/confirm?token=\(token.value)")
    case .withdraw?:
      (page, url) = (.withdraw, "/account/withdraw")
    case .withdrawn?:
      (page, url) = (.withdrawn, "/account/withdrawn")
    case let .verifyAddress(token)?:
      (page, url) = (.verifyAddress(token: token.value), "/account/verify?token=\(token.value)")
    case .passwordForgot?:
      (page, url) = (.passwordForgot, "/password/forgot")
    case let .passwordReset(token)?:
      (page, url) = (.passwordReset(token: token.value), "/password/reset?token=\(token.value)")
    case let .exchangeConfirmation(option, alert)?:
      (page, url) = (.confirmation(alert.map(AppFeature.Action.exchange), cancel: "/exchange"), "/exchange/\(option.id.rawValue)")
    }
    // A page's URL may carry its query (a link's token); the request's path never does.
    return isForm || url.prefix(while: { $0 != "?" }) != path ? .redirect(url) : .page(page)
  }

  /// Where a form sends `action`, and its hidden fields: the way back from the controllers'
  /// decoding, for the buttons of an alert shown as a page.
  static func formTarget(of action: AppFeature.Action) -> (path: String, fields: [String: String])? {
    switch action {
    case let .exchange(.exchangeButtonTapped(id, ledgerCount, _)): ("/exchange/\(id.rawValue)", ["ledger": "\(ledgerCount)"])
    default: nil
    }
  }
}

extension Pages {
  /// A page's bytes, from the user's state.
  static func render(_ page: Navigation.Page, _ state: AppFeature.State, csrf: () -> String, renderer: PageRenderer) -> ByteBuffer {
    if case .surveys = page { return renderer.surveysPage(state) }  // kept in pieces of bytes
    return ByteBuffer(string: html(page, state, csrf: csrf, renderer: renderer))
  }

  /// A page's template and context, from the user's state.
  private static func html(_ page: Navigation.Page, _ state: AppFeature.State, csrf: () -> String, renderer: PageRenderer) -> String {
    switch page {
    case .surveys: String(buffer: renderer.surveysPage(state))
    case let .survey(survey): renderer.render("survey", self.survey(state, survey: survey, csrf: csrf(), fragments: renderer))
    case let .surveyIneligible(survey, eligibility): renderer.render("survey-ineligible", surveyIneligible(state, survey: survey, eligibility))
    case let .complete(survey, answered): renderer.render("complete", complete(state, survey: survey, answered: answered))
    case let .screenedOut(survey, answered): renderer.render("screened-out", screenedOut(state, survey: survey, answered: answered))
    case let .answerInvalid(survey, answered): renderer.render("survey-invalid", answerInvalid(state, survey: survey, answered: answered))
    case let .surveyClosed(survey, closure): renderer.render("survey-closed", surveyClosed(state, survey: survey, closure))
    case .points: renderer.render("points", points(state, fragments: renderer))
    case .history: renderer.render("history", history(state))
    case .missions: renderer.render("missions", missionsPage(state, csrf: csrf()))
    case .exchange: renderer.render("exchange", exchange(state))
    case .exchangeHistory: renderer.render("exchange-history", exchangeHistory(state))
    case let .exchangeRequest(request): renderer.render("exchange-request", exchangeRequestPage(state, request))
    case .profile: renderer.render("profile", profile(state, csrf: csrf()))
    case let .signIn(kind): renderer.render("sign-in", signIn(state, kind, csrf: csrf()))
    case .account: renderer.render("account", account(state, csrf: csrf()))
    case .notificationSettings: renderer.render("notifications", notificationSettings(state, csrf: csrf()))
    case let .confirmAddressChange(token): renderer.render("confirm-address-change", verifyAddress(state, token: token, csrf: csrf()))
    case .withdraw: renderer.render("withdraw", withdraw(state, csrf: csrf()))
    case .withdrawn: renderer.render("withdrawn", layout(state, body: [:]))
    case let .verifyAddress(token): renderer.render("verify-address", verifyAddress(state, token: token, csrf: csrf()))
    case .passwordForgot: renderer.render("password-forgot", layout(state, body: ["csrf": csrf()]))
    case let .passwordReset(token): renderer.render("password-reset", layout(state, body: ["csrf": csrf(), "token": token]))
    case let .confirmation(alert, cancel): renderer.render("confirmation", confirmation(state, alert, cancel: cancel, csrf: csrf()))
    }
  }
}

extension Pages {
  /// An alert as a page. A button whose action no form sends is a programming error, left out
  /// rather than shown dead.
  static func confirmation(_ state: AppFeature.State, _ alert: AlertState<AppFeature.Action>, cancel: String, csrf: String) -> [String: Any] {
    var body: [String: Any] = [
      "title": alert.title,
      "buttons": alert.buttons.compactMap { button -> [String: Any]? in
        guard let action = button.action else { return ["label": button.label, "href": cancel] }
        guard let target = Navigation.formTarget(of: action) else { return nil }
        return [
          "label": button.label, "action": target.path, "isDestructive": button.role == .destructive,
          "fields": target.fields.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
        ]
      },
      "csrf": csrf,
      "asksPassword": state.exchangeAsksPassword,
    ]
    if let message = alert.message { body["message"] = message }
    return layout(state, body: body)
  }
}
