import Foundation
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
    case secondFactor
    case enrolment
    case recoveryCodes
    case operators
    /// Not a page: the responses, streamed (`ResponseExporter`).
    case export
    /// What a download holds, each file made to count and digest it (`ResponseExporter`).
    case exportPage
    /// Not a page: the manifest beside a download, as JSON.
    case exportManifest
  }

  /// `uri`: the request's path and query, where a second factor asked again leads back to.
  static func reply(to state: OperatorFeature.State, path: String, uri: String, isForm: Bool) -> Navigation.Reply<Page> {
    let (page, url): (Page, String)
    let refused = isForm && state.refusal != nil
    switch state.destination {
    case nil:
      return .error(.internalServerError)
    case .notFound?:
      return .error(.notFound)
    case .forbidden?:
      return .error(.forbidden)
    case .secondFactor?:
      var query = [refused ? "refused=1" : nil, state.next.map { "next=" + escaped($0) }].compactMap { $0 }.joined(separator: "&")
      if !query.isEmpty { query = "?" + query }
      if isForm || path != "/admin/login/code" { return .redirect("/admin/login/code" + query) }
      (page, url) = (.secondFactor, path)
    case .enrolment?:
      (page, url) = (.enrolment, refused ? "/admin/login/enrol?refused=1" : "/admin/login/enrol")
    case .recoveryCodes?:
      (page, url) = (.recoveryCodes, "/admin/login/recovery-codes")
    case .reconfirm?:
      // A form is sent again from its page once the code is given; a page opens as asked.
      return .redirect("/admin/login/code?next=" + escaped(isForm ? "/admin/operators" : uri))
    case let .resume(next)?:
      return .redirect(next)
    case let .operators(outcome)?:
      let query = switch outcome {
      case let .done(notice)?: "?done=\(notice.rawValue)"
      case let .refused(error)?: "?refused=\(error.rawValue)"
      case nil: ""
      }
      if isForm { return .redirect("/admin/operators\(query)") }
      (page, url) = (.operators, "/admin/operators")
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
      // After a decision, what it did goes in the URL of the page it leads to.
      if isForm { return .redirect("/admin/users" + query(of: state.desk.outcome)) }
      (page, url) = (.users, "/admin/users")
    case let .user(user, outcome)?:
      // After a form, what it did goes in the URL of the page it leads to, which says so.
      if isForm { return .redirect("/admin/users/\(user)" + query(of: outcome)) }
      (page, url) = (.user, "/admin/users/\(user)")
    case let .export(id, export)?:
      // At the address that names its filters and cut, in this order (else a 303 there).
      return exportReply(.export, "/admin/surveys/\(id.rawValue)/responses.\(export.format.rawValue)?\(export.query)", uri: uri)
    case let .exportPage(id, export)?:
      return exportReply(.exportPage, "/admin/surveys/\(id.rawValue)/export?\(export.query)", uri: uri)
    case let .exportManifest(id, export)?:
      return exportReply(.exportManifest, "/admin/surveys/\(id.rawValue)/responses.\(export.format.rawValue).manifest.json?\(export.query)", uri: uri)
    }
    return isForm || url.prefix { $0 != "?" } != path ? .redirect(url) : .page(page)
  }

  /// An export's page or file at `url` exactly (its query included), or a 303 there.
  private static func exportReply(_ page: Page, _ url: String, uri: String) -> Navigation.Reply<Page> {
    uri == url ? .page(page) : .redirect(url)
  }

  /// What a desk's form did, as the query of the page it leads to.
  static func query(of outcome: SupportOutcome?) -> String {
    switch outcome {
    case let .done(notice)?: "?done=\(notice.rawValue)"
    case let .refused(error)?: "?refused=\(error.rawValue)"
    case nil: ""
    }
  }

  /// A console path as a query's value.
  static func escaped(_ path: String) -> String {
    path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/"))) ?? "/admin"
  }
}

extension Pages {
  static func render(_ page: OperatorNavigation.Page, _ state: OperatorFeature.State, csrf: String, renderer: PageRenderer) -> String {
    switch page {
    case .login: renderer.render("admin-login", adminLogin(state, csrf: csrf))
    case .surveys: renderer.render("admin-surveys", adminSurveys(state, csrf: csrf))
    case .audit: renderer.render("admin-audit", adminAudit(state, csrf: csrf))
    case .editor: renderer.render("admin-editor", adminEditor(state, csrf: csrf))
    case .preview: renderer.render("survey", adminPreview(state, csrf: csrf, fragments: renderer))
    case .dashboard: renderer.render("admin-dashboard", adminDashboard(state, csrf: csrf))
    case .users: renderer.render("admin-users", adminUsers(state, csrf: csrf))
    case .user: renderer.render("admin-user", adminUser(state, csrf: csrf))
    case .secondFactor: renderer.render("admin-second-factor", adminSecondFactor(state, csrf: csrf))
    case .enrolment: renderer.render("admin-enrolment", adminEnrolment(state, csrf: csrf))
    case .recoveryCodes: renderer.render("admin-recovery-codes", adminRecoveryCodes(state, csrf: csrf))
    case .operators: renderer.render("admin-operators", adminOperators(state, csrf: csrf))
    case .export, .exportPage, .exportManifest: ""  // made by the loop, which counts the files first
    }
  }
}
