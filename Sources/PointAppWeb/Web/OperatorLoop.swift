import Composable
import Dependencies
import Foundation
import Hummingbird
import PointApp

/// One request of an operator: session → send the request's action to `OperatorFeature` → respond
/// from where it led (`OperatorNavigation`). The console's shell, as `RequestLoop` is the users';
/// controllers only decode requests into actions. Who may reach it at all is `OperatorGate`'s.
struct OperatorLoop: Sendable {
  let sessions: OperatorSessions
  let service: OperatorService
  let desk: SupportDeskService
  let renderer: PageRenderer
  let exporter: ResponseExporter
  /// Resolved once at start-up, as the users' loop's.
  let dependencies: DependencyValues
  let maxBodySize: Int
  let effectDeadline: Duration
  let trustedProxies: Set<String>
  let app: PreparedReducer<OperatorFeature.State, OperatorFeature.Action>

  /// Runs a page (GET) as `action` for the session the gate admitted.
  func page(_ request: Request, _ context: AppRequestContext, _ action: OperatorFeature.Action) async throws -> Response {
    try await run(context.admitted(), request: request, isForm: false, client: nil, action)
  }

  /// Runs a form POST as the action `decode` makes of its fields: the Origin (when sent) ours and
  /// the CSRF token the session's; otherwise 403 and nothing is changed. A `large` form (a whole
  /// survey) may be 8 times the size and carry 2,000 fields.
  func form(
    _ request: Request, _ context: AppRequestContext, large: Bool = false, _ decode: (FormBody) throws -> OperatorFeature.Action
  ) async throws -> Response {
    let session = try context.admitted()
    guard RequestLoop.isSameOrigin(request) else { throw HTTPError(.forbidden) }
    let form = try await FormBody(request: request, limit: large ? maxBodySize * 8 : maxBodySize, maxFields: large ? 2_000 : FormBody.maxFields)
    guard let token = try? form.value("csrf"), sessions.isValid(csrfToken: token, for: session) else {
      throw HTTPError(.forbidden)
    }
    let client = context.client(of: request, trustedProxies: trustedProxies)
    return try await run(session, request: request, isForm: true, client: client, try decode(form))
  }

  private func withFormat(_ export: ResponseExport, _ format: ResponseExport.Format) -> ResponseExport {
    var export = export
    export.format = format
    return export
  }

  private func run(
    _ session: OperatorSession, request: Request, isForm: Bool, client: String?, _ action: OperatorFeature.Action
  ) async throws -> Response {
    var dependencies = dependencies
    dependencies.operators = service.client(for: session, from: client)
    dependencies.supportDesk = desk.client(for: session)
    let initial = OperatorFeature.State(signedIn: session.email, role: session.role, secondFactor: session.secondFactor, revealed: session.revealed)
    let store = Store(initialState: initial, reducer: app, dependencies: dependencies)
    guard await store.send(action, deadline: effectDeadline) == .finished else {
      throw HTTPError(.serviceUnavailable, message: "effects timed out")
    }
    let state = store.state
    var response: Response
    let reply = OperatorNavigation.reply(to: state, path: request.uri.path, uri: request.uri.description, isForm: isForm)
    switch reply {
    case .page(.export):
      guard case let .export(_, export)? = state.destination, let survey = state.survey else {
        throw HTTPError(.internalServerError, message: "an export without its survey")
      }
      response = exporter.response(survey, export)
    case .page(.exportPage), .page(.exportManifest):
      guard let export = state.destination?.export, let survey = state.survey else {
        throw HTTPError(.internalServerError, message: "an export's page without its survey")
      }
      let table = try await exporter.table(of: survey)
      if case .page(.exportManifest) = reply {
        let manifest = ExportManifest(survey: survey, export: export, digest: try await exporter.digest(survey, export, table: table))
        response = .json(manifest.data, filename: ResponseExporter.fileName(survey, export) + ".manifest.json")
      } else {
        // Each file made to count and digest it: what the page says is what a download gives.
        let digests = [
          (export, try await exporter.digest(survey, export, table: table)),
          (withFormat(export, .jsonl), try await exporter.digest(survey, withFormat(export, .jsonl), table: table)),
        ]
        let csrf = sessions.csrfToken(for: session)
        response = .html(renderer.render("admin-export", Pages.adminExport(state, csrf: csrf, survey: survey, digests: digests)))
      }
    case let .page(page):
      response = .html(Pages.render(page, state, csrf: sessions.csrfToken(for: session), renderer: renderer))
    case let .redirect(location):
      response = .redirect(to: location, type: .normal)
    case .error(.internalServerError):
      throw HTTPError(.internalServerError, message: "\(action) led nowhere")
    case let .error(status):
      // In the console's frame: who is signed in, and the way out.
      let page = Pages.adminLayout(state, csrf: sessions.csrfToken(for: session), body: Pages.consoleError(status))
      response = .html(renderer.render("console-error", page), status: status)
    }
    // What the session showed once is forgotten once a page has shown it.
    if let revealed = session.revealed, case let .page(page) = reply, Pages.shows(revealed, on: page) {
      try await sessions.update(session) { $0.revealed = nil }
    }
    let now = dependencies.date.now
    switch state.identityChange {
    case let .signedIn(email)?:
      // A new session id for the operator: an id known before never carries the sign-in.
      response.setCookie(sessions.cookie(for: try await sessions.signIn(session, as: email, now: now)))
    case .signedOut?:
      try await service.signedOut(session, at: now)
      response.setCookie(sessions.cookie(for: try await sessions.signOut(session, now: now)))
    case nil:
      if session.setsCookie { response.setCookie(sessions.cookie(for: session)) }
    }
    return response
  }
}

/// Who reaches `/admin` at all: a signed-in operator everywhere under it; a browser signed in to
/// nobody (no user's session either) only at `/admin` (sent on to the sign-in page) and
/// `/admin/login`. Everyone else, guests and users, gets 404 from every URL under it, whatever
/// its method: nothing tells them the console exists.
struct OperatorGate: RouterMiddleware {
  typealias Context = AppRequestContext
  let sessions: OperatorSessions
  let now: @Sendable () -> Date

  @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
    let session = try await sessions.session(for: request, now: now())
    guard session.email != nil || !sessions.carriesUserSession(request) && ["/admin", "/admin/login"].contains(request.uri.path) else {
      throw HTTPError(.notFound)
    }
    var context = context
    context.operatorSession = session
    return try await next(request, context)
  }
}

extension AppRequestContext {
  /// The session `OperatorGate` admitted; a route under `/admin` outside the gate is a bug.
  func admitted() throws -> OperatorSession {
    guard let operatorSession else { throw HTTPError(.notFound) }
    return operatorSession
  }
}
