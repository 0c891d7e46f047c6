import Hummingbird
import PointApp

/// How the web shows where an operator is, as `Navigation` does for users: after a form, a 303 to
/// the destination's URL; for a page, the destination's page at its own URL (or a 303 to it); or
/// an error page.
enum OperatorNavigation {
  enum Page: Equatable {
    case login
    case surveys
    case audit
    case editor
    case preview
    case dashboard
    case users
    case user
    /// Not a page: the responses, streamed (`ResponseExporter`).
    case export
  }

  static func reply(to state: OperatorFeature.State, path: String, isForm: Bool) -> Navigation.Reply<Page> {
    let (page, url): (Page, String)
    switch state.destination {
    case nil:
      return .error(.internalServerError)
    case .notFound?:
      return .error(.notFound)
    case .unavailable?:
      return .error(.serviceUnavailable)
    case .tooManyAttempts?:
      return .error(.tooManyRequests)
    case .login?:
      // A refused sign-in says so on the page it leads back to.
      (page, url) = (.login, isForm && state.refusal != nil ? "/admin/login?refused=1" : "/admin/login")
    case .surveys?:
      (page, url) = (.surveys, "/admin/surveys")
    case .audit?:
      (page, url) = (.audit, "/admin/audit")
    case let .editor(id)?:
      (page, url) = (.editor, "/admin/surveys/\(id.rawValue)/edit")
    case let .preview(id)?:
      (page, url) = (.preview, "/admin/surveys/\(id.rawValue)/preview")
    case let .dashboard(id)?:
      (page, url) = (.dashboard, "/admin/surveys/\(id.rawValue)")
    case .users?:
      (page, url) = (.users, "/admin/users")
    case let .user(user, outcome)?:
      // After a form, what it did goes in the URL of the page it leads to, which says so.
      let query = switch outcome {
      case let .done(notice)?: "?done=\(notice.rawValue)"
      case let .refused(error)?: "?refused=\(error.rawValue)"
      case nil: ""
      }
      if isForm { return .redirect("/admin/users/\(user)\(query)") }
      (page, url) = (.user, "/admin/users/\(user)")
    case let .export(id, export)?:
      (page, url) = (.export, "/admin/surveys/\(id.rawValue)/responses.\(export.format.rawValue)")
    }
    return isForm || url != path ? .redirect(url) : .page(page)
  }
}

extension Pages {
  static func render(_ page: OperatorNavigation.Page, _ state: OperatorFeature.State, csrf: String, renderer: PageRenderer) -> String {
    switch page {
    case .login: renderer.render("admin-login", adminLogin(state, csrf: csrf))
    case .surveys: renderer.render("admin-surveys", adminSurveys(state, csrf: csrf))
    case .audit: renderer.render("admin-audit", adminAudit(state, csrf: csrf))
    case .editor: renderer.render("admin-editor", adminEditor(state, csrf: csrf))
    case .preview: renderer.render("survey", adminPreview(state, csrf: csrf))
    case .dashboard: renderer.render("admin-dashboard", adminDashboard(state, csrf: csrf))
    case .users: renderer.render("admin-users", adminUsers(state, csrf: csrf))
    case .user: renderer.render("admin-user", adminUser(state, csrf: csrf))
    case .export: ""  // streamed by the loop, never rendered
    }
  }
}
