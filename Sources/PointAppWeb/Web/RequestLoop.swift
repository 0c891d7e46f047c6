import Composable
import Dependencies
import Foundation
import Hummingbird
import PointApp

/// What a controller answers once the user's actions have run.
struct Reply {
  enum Kind {
    case page(template: String, context: [String: Any], status: HTTPResponse.Status)
    case redirect(String)
  }

  let kind: Kind
  /// Whether the resulting state may be saved (a refused form, 422, saves nothing).
  let saves: Bool

  static func page(_ template: String, _ context: [String: Any], status: HTTPResponse.Status = .ok) -> Reply {
    Reply(kind: .page(template: template, context: context, status: status), saves: status == .ok)
  }

  static func redirect(_ location: String) -> Reply {
    Reply(kind: .redirect(location), saves: true)
  }
}

/// The store a request drives, with the session's CSRF token for the forms it renders.
struct UserContext {
  let store: Store<AppFeature.State, AppFeature.Action>
  let session: Session
  let sessions: Sessions
  let deadline: Duration
  let dependencies: DependencyValues

  var state: AppFeature.State { store.state }

  /// The token of the session's forms (signed when a page has forms, not for every request).
  var csrf: String { sessions.csrfToken(for: session) }

  /// Sends an action and waits for its effects; a run past the deadline is a 503, not a success.
  func send(_ action: AppFeature.Action) async throws {
    guard await store.send(action, deadline: deadline) == .finished else {
      throw HTTPError(.serviceUnavailable, message: "effects timed out")
    }
  }

  /// The catalog's survey titles, for pages that name surveys by id (the ledger); empty when the
  /// catalog cannot be read, and the page falls back to ids.
  func surveyTitles() async -> [SurveyID: String] {
    let surveys = (try? await dependencies.surveyClient.fetchAll()) ?? []
    return Dictionary(surveys.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
  }
}

/// One request of one user as one transaction: session → load state → send actions → save (only
/// when something persistent changed) → respond. The shell around `AppFeature`.
struct RequestLoop: Sendable {
  let users: any UserStateStore
  let sessions: Sessions
  let renderer: PageRenderer
  /// Resolved once at start-up; every store and effect of every request sees these.
  let dependencies: DependencyValues
  let maxBodySize: Int
  let effectDeadline: Duration
  /// Decoded states of recent users, so that an unchanged file is not decoded again.
  let cache = SavedStateCache()
  /// The root feature with its body built once (with `dependencies`), for every request's store.
  let app: PreparedReducer<AppFeature.State, AppFeature.Action>

  /// Runs a GET: `body` sends the page's actions and builds the reply.
  func page(
    _ request: Request, context: some RequestContext,
    _ body: @escaping @Sendable (UserContext) async throws -> Reply
  ) async throws -> Response {
    try await run(sessions.session(for: request), request: request, context: context, readFirst: true, body)
  }

  /// Runs a form POST: the session must be an existing one, the Origin (when sent) ours and the
  /// CSRF token the session's; otherwise 403 and nothing is read or changed.
  func form(
    _ request: Request, context: some RequestContext,
    _ body: @escaping @Sendable (FormBody, UserContext) async throws -> Reply
  ) async throws -> Response {
    let session = sessions.session(for: request)
    guard !session.isNew, isSameOrigin(request) else { throw HTTPError(.forbidden) }
    let form = try await FormBody(request: request, limit: maxBodySize)
    guard let token = try? form.value("csrf"), sessions.isValid(csrfToken: token, for: session) else {
      throw HTTPError(.forbidden)
    }
    return try await run(session, request: request, context: context, readFirst: false) { user in
      try await body(form, user)
    }
  }

  /// With `readFirst` (a page view), the user's file is first read without the user's lock: most
  /// views change nothing, and those run side by side. A view that does change something (the
  /// day's first visit, a flash shown) is run again as an update, from the file as it is then.
  private func run(
    _ session: Session, request: Request, context: some RequestContext, readFirst: Bool,
    _ body: @escaping @Sendable (UserContext) async throws -> Reply
  ) async throws -> Response {
    let transaction: @Sendable (Data?) async throws -> (save: UserSave?, result: Response) = { [self] saved in
      let surveys = (try? await dependencies.surveyClient.fetchAll().map { $0.id }) ?? []
      let initial = try await UserFiles.load(saved, of: session.id, surveys: surveys, from: users, cache: cache)
      var dependencies = dependencies
      if initial.progress.ledger.archivedCount > 0 {
        dependencies.ledgerArchive = UserFiles.ledgerArchive(of: session.id, in: users)
      }
      let user = UserContext(
        store: Store(initialState: initial, reducer: app, dependencies: dependencies),
        session: session, sessions: sessions, deadline: effectDeadline, dependencies: dependencies
      )
      let reply = try await body(user)
      let response = render(reply)
      if case .page = reply.kind, reply.saves, user.state.flash != nil {
        try await user.send(.flashShown)
      }
      let after = user.state
      let changed = after.progress != initial.progress || after.flash != initial.flash
      guard reply.saves, !session.isNew, changed else { return (nil, response) }
      let (save, savedState) = try UserFiles.save(after)
      cache.remember(session.id, bytes: save.state, state: savedState, surveys: surveys)
      return (save, response)
    }
    var response: Response
    if session.isNew {
      response = try await transaction(nil).result
    } else if readFirst, case (nil, let viewed) = try await transaction(users.read(session.id)) {
      response = viewed
    } else {
      response = try await users.update(session.id, transaction)
    }
    if session.isNew { response.setCookie(sessions.cookie(for: session)) }
    return response
  }

  private func render(_ reply: Reply) -> Response {
    switch reply.kind {
    case let .page(template, context, status):
      .html(renderer.render(template, context), status: status)
    case let .redirect(location):
      Response.redirect(to: location, type: .normal)
    }
  }

  /// A browser sends Origin with every form POST; one from another site (or "null") is refused.
  private func isSameOrigin(_ request: Request) -> Bool {
    guard let origin = request.headers[.origin] else { return true }
    guard let host = request.head.authority else { return false }
    return origin == "http://\(host)" || origin == "https://\(host)"
  }
}
