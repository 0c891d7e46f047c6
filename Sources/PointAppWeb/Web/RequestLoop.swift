import Composable
import Dependencies
import Foundation
import Synchronization
import Hummingbird
import PointApp

/// One request of one user as one transaction: session → load state → send the request's action
/// → respond from where they led (`Navigation`) → save, only when something persistent changed.
/// The shell around `AppFeature`: controllers only decode requests into actions.
struct RequestLoop: Sendable {
  let users: UserStates
  let sessions: Sessions
  let renderer: PageRenderer
  /// Resolved once at start-up; every store and effect of every request sees these.
  let dependencies: DependencyValues
  /// The catalog without its quotas counted: the ids whose archived answers a request loads.
  let catalog: SurveyClient
  let maxBodySize: Int
  let effectDeadline: Duration
  let trustedProxies: Set<String>
  let metrics: ProductMetrics
  /// Registration and login, bound to each form's session.
  let accounts: AccountService
  /// Surveys' quotas: a form's claims are made for its user, in their update.
  let quotas: Quotas
  /// Every finished answer's response, recorded with the update that saves the answer.
  let responses: ResponseStore
  /// Exchange requests a request left pending, recorded with the update that saves them.
  let exchanges: ExchangeQueue
  /// Takes up the requests a form queued once its update has committed (the user's lock let go),
  /// before the form is answered: a source that answers at once gives the code on the page the
  /// form leads to. Set once the fulfiller, which needs this loop, exists.
  let fulfilNow = FulfilNow()
  /// The messages an update asked for, queued with it.
  let mail: MailOutbox
  /// Decoded states of recent users, so that an unchanged file is not decoded again.
  let cache: SavedStateCache
  /// On PostgreSQL: what a request may read from this instance's caches, and the marks that tell.
  let feed: ChangeFeed?
  /// The root feature with its body built once (with `dependencies`), for every request's store.
  let app: PreparedReducer<AppFeature.State, AppFeature.Action>

  /// Runs a page (GET) as `action`.
  func page(_ request: Request, _ action: AppFeature.Action) async throws -> Response {
    try await reading(request) {
      try await run(sessions.session(for: request, now: dependencies.date.now), request: request, isForm: false, action)
    }
  }

  /// A user's state as last saved, read without their lock (`nil`: nothing saved): for what
  /// works beside their updates (the exchange fulfiller reads a request it then calls out for).
  func state(of user: UserID) async throws -> AppFeature.State? {
    try await users.read(user).map(SavedState.state(from:))
  }

  /// The signed-in member's data as one JSON file (`MemberData`), to keep; 404 for a guest.
  /// Reads only: nothing of theirs changes.
  func memberData(_ request: Request) async throws -> Response {
    let now = dependencies.date.now
    let session = try await sessions.session(for: request, now: now)
    guard !session.isNew, let account = session.account else { throw HTTPError(.notFound) }
    let data = try await MemberData.of(account, in: users, catalog: (try? await catalog.fetchAll()) ?? [], at: now)
    return Response(
      status: .ok,
      headers: [
        .contentType: "application/json; charset=utf-8", .contentDisposition: #"attachment; filename="pointapp-data.json""#,
        .cacheControl: "no-store",
      ],
      body: .init(byteBuffer: ByteBuffer(bytes: data.json))
    )
  }

  /// Runs `body` with the caches on when the browser's mark (`pointapp_state`) says this
  /// instance has heard of everything it wrote (`ChangeFeed.covers`).
  private func reading<R>(_ request: Request, _ body: () async throws -> R) async throws -> R {
    guard let feed else { return try await body() }
    let mark = Sessions.sessionCookie(named: Sessions.stateCookieName, in: request.headers[values: .cookie])
    return try await ChangeFeed.$servesCached.withValue(feed.covers(mark: mark)) { try await body() }
  }

  /// Runs a form POST as the action `decode` makes of its fields: the session must be an existing
  /// one, the Origin (when sent) ours and the CSRF token the session's; otherwise 403 and nothing
  /// is read or changed. `client` is the address it comes from, where it counts (logins).
  func form(_ request: Request, client: String? = nil, _ decode: (FormBody) throws -> AppFeature.Action) async throws -> Response {
    let session = try await reading(request) { try await sessions.session(for: request, now: dependencies.date.now) }
    guard !session.isNew, Self.isSameOrigin(request) else { throw HTTPError(.forbidden) }
    let form = try await FormBody(request: request, limit: maxBodySize)
    guard let token = try? form.value("csrf"), sessions.isValid(csrfToken: token, for: session) else {
      throw HTTPError(.forbidden)
    }
    let action = try decode(form)
    // A sign-in's bcrypt and login limits, before the user's lock and outside any transaction.
    let prepared = try await accounts.prepare(action, for: session, from: client, now: dependencies.date.now)
    return try await run(session, request: request, isForm: true, client: client, prepared: prepared, action)
  }

  /// A request from a browser: session → load → send → navigate → save → cookies. A page view
  /// first runs without the user's lock, saving nothing: most views change nothing, and those run
  /// side by side. One that does change something (the day's first visit, a flash shown) runs
  /// again as the user's update, from the file as it is then; a form always does.
  private func run(
    _ session: Session, request: Request, isForm: Bool, client: String? = nil, prepared: AccountService.Prepared? = nil,
    _ action: AppFeature.Action
  ) async throws -> Response {
    let visit = Visit(session: session, path: request.uri.path, isForm: isForm, client: client, prepared: prepared)
    if session.isNew { return try await respond(update(session.user, from: nil, action, visit, locked: false).result, to: visit) }
    if !isForm, case (nil, let viewed) = try await update(session.user, from: users.read(session.user), action, visit, locked: false) {
      return try await respond(viewed, to: visit)
    }
    let saved = try await users.update(session.user) { try await update(session.user, from: $0, action, visit, locked: true) }
    if !saved.queued.isEmpty { await fulfilNow.run(saved.queued) }
    return try await respond(saved, to: visit, locked: true)
  }

  /// Runs `action` on a user's saved state outside any request (the exchange sweep, the support
  /// desk) as a request's update would, and saves what it changed; the state it left, `nil` for a
  /// user with no state. `audit` runs with the states before and after, before the change is
  /// saved (an entry, which the change then follows: on PostgreSQL in its transaction).
  func send(
    _ action: AppFeature.Action, to user: UserID, audit: (@Sendable (AppFeature.State, AppFeature.State) async throws -> Void)? = nil
  ) async throws -> AppFeature.State? {
    let outcome = try await users.update(user) { saved -> (save: UserSave?, result: Outcome?) in
      guard saved != nil else { return (nil, nil) }
      return try await update(user, from: saved, action, nil, locked: true, audit: audit)
    }
    if let ledgers = outcome?.ledgers { metrics.recordSaved(from: ledgers.before, to: ledgers.after) }
    return outcome?.state
  }

  /// Who a request is from, and what it asked.
  struct Visit: Sendable {
    let session: Session
    let path: String
    let isForm: Bool
    let client: String?
    let prepared: AccountService.Prepared?
  }

  /// What an update did: the page it answers (a request's), the state it left, the ledger before
  /// and after when it saves.
  struct Outcome: Sendable {
    var response: Response?
    var state: AppFeature.State
    var ledgers: (before: PointLedger, after: PointLedger)?
    /// The exchange requests the update queued (a locked one's).
    var queued: [ExchangeQueue.Entry] = []
  }

  /// load → send → navigate → save: one update of `user` from the state `saved`, what the save
  /// implies (responses recorded, approvals, exchanges queued, an audit entry) hooked to it.
  /// `locked`: the user's update, which saves; without the lock a save is only returned, the cue
  /// to run again locked.
  private func update(
    _ user: UserID, from saved: Data?, _ action: AppFeature.Action, _ visit: Visit?, locked: Bool,
    audit: (@Sendable (AppFeature.State, AppFeature.State) async throws -> Void)? = nil
  ) async throws -> (save: UserSave?, result: Outcome) {
    let read = try? await catalog.fetchAll()
    let catalogNow = read ?? []
    // The catalog as a list shows it (places counted), before the store runs: the list is then
    // made in the action's own step. One that cannot be read or counted is left to the list's
    // effect, which reports it.
    var listed: [Survey]?
    if action.readsCatalog, let read { listed = try? await quotas.counted(read) }
    let (store, initial) = try await load(user, from: saved, catalog: catalogNow, listed: listed, visit: visit, locked: locked)
    guard await store.send(action, deadline: effectDeadline) == .finished else {
      metrics.deadlineOverruns.increment()
      throw HTTPError(.serviceUnavailable, message: "effects timed out")
    }
    let response = if let visit { try await navigate(store, visit, after: action) } else { Response?.none }
    let after = store.state
    var outcome = Outcome(response: response, state: after)
    guard
      visit?.session.isNew != true,
      SavedState.userData(of: after) != SavedState.userData(of: initial) || !after.outbox.isEmpty || !after.exchangeNudges.isEmpty
    else {
      return (nil, outcome)
    }
    var (save, savedState) = try UserFiles.save(after)
    if locked {
      hook(&save, of: user, from: initial, to: after, catalog: catalogNow, audit: audit)
      outcome.queued = Self.newlyPending(from: initial, to: after, of: user)
    }
    cache.remember(user, bytes: save.state, state: savedState, surveys: catalogNow.map(\.id))
    outcome.ledgers = (initial.progress.ledger, after.progress.ledger)
    return (save, outcome)
  }

  /// The user's store on their saved state, with what a request's forms reach (their accounts,
  /// quotas), the catalog a list is made from (`listed`) and the ledger's archive.
  private func load(
    _ user: UserID, from saved: Data?, catalog: [Survey], listed: [Survey]?, visit: Visit?, locked: Bool
  ) async throws -> (Store<AppFeature.State, AppFeature.Action>, AppFeature.State) {
    let surveys = catalog.map(\.id)
    var initial = try await UserFiles.load(saved, of: user, surveys: surveys, from: users, cache: cache)
    initial.surveyListPage.catalog = listed
    var dependencies = dependencies
    dependencies.respondents = RespondentClient { [sessions] survey in sessions.respondent(user, in: survey) }
    // Places are claimed in the user's update, which holds them to its commit (by their forms,
    // or by the desk's approval); a pass without the lock claims none.
    if locked { dependencies.quotas = quotas.client(for: user) }
    if let visit {
      initial.account = visit.session.account.flatMap { EmailAddress($0.email) }
      initial.passwordConfirmedAt = visit.session.passwordConfirmedAt
      initial.addressStatus = visit.session.account?.addressStatus
      if visit.isForm {
        dependencies.accounts = accounts.client(for: visit.session, from: visit.client, surveys: surveys, prepared: visit.prepared)
      }
    }
    if initial.progress.ledger.archivedCount > 0 {
      dependencies.ledgerArchive = UserFiles.ledgerArchive(of: user, in: users)
    }

    return (Store(initialState: initial, reducer: app, dependencies: dependencies), initial)
  }

  /// The response to where the user's actions led (`Navigation`): a page (which shows the flash
  /// once), a redirect, or an error page.
  private func navigate(_ store: Store<AppFeature.State, AppFeature.Action>, _ visit: Visit, after action: AppFeature.Action) async throws -> Response {
    switch Navigation.reply(to: store.state.destination, path: visit.path, isForm: visit.isForm) {
    case let .page(page):
      let state = store.state
      let response = Response.html(Pages.render(page, state, csrf: { sessions.csrfToken(for: visit.session) }, renderer: renderer))
      if state.flash != nil { await store.send(.flashShown) }
      return response
    case let .redirect(location):
      return .redirect(to: location, type: .normal)
    case .error(.internalServerError):
      throw HTTPError(.internalServerError, message: "\(action) led nowhere")
    case let .error(status):
      return .html(renderer.render("error", Pages.error(status)), status: status)
    }
  }

  /// What the save implies, written with it (`UserSave.before`, in the user's holding): the
  /// responses of the answers finished or approved, the exchange requests and the messages
  /// queued, an audit entry.
  private func hook(
    _ save: inout UserSave, of user: UserID, from initial: AppFeature.State, to after: AppFeature.State, catalog: [Survey],
    audit: (@Sendable (AppFeature.State, AppFeature.State) async throws -> Void)?
  ) {
    let finished = SurveyResponse.finished(
      from: initial.progress, to: after.progress,
      survey: { id in catalog.first { $0.id == id } }, respondent: { sessions.respondent(user, in: $0) }
    )
    let approvals = SurveyResponse.approvals(from: initial.progress, to: after.progress).map { approval in
      (key: ResponseStore.Key(approval.survey, sessions.respondent(user, in: approval.survey)), paid: approval.paid)
    }
    let queued = Self.newlyPending(from: initial, to: after, of: user)
    let now = dependencies.date.now
    save.before = { [responses, exchanges, mail] in
      try await audit?(initial, after)
      try await responses.record(finished)
      try await responses.approve(approvals)
      try await exchanges.add(queued, at: now)
      for nudge in after.exchangeNudges { try await exchanges.nudge(ExchangeQueue.Entry(user: user, number: nudge.number), end: nudge.end) }
      try await mail.queue(after.outbox, for: user, at: now)
    }
  }

  /// The response with its cookies: the session's when it is new, a new session id for a new
  /// identity (an id known before never carries it), and a new state cookie after a change: on
  /// PostgreSQL a mark notified after the request's writes (`pointapp_state`), by which other
  /// instances serve this browser from their caches once they have heard it (`ChangeFeed`).
  private func respond(_ outcome: Outcome, to visit: Visit, locked: Bool = false) async throws -> Response {
    guard var response = outcome.response else { throw HTTPError(.internalServerError) }
    let session = visit.session
    let changed = locked && (outcome.ledgers != nil || outcome.state.identityChange != nil)
    if locked, let ledgers = outcome.ledgers { metrics.recordSaved(from: ledgers.before, to: ledgers.after) }
    if locked, let identity = outcome.state.identityChange {
      let renewed = try await sessions.renew(session, as: identity, now: dependencies.date.now)
      response.setCookie(sessions.cookie(for: renewed))
    } else if session.setsCookie {
      response.setCookie(sessions.cookie(for: session))
    }
    // Every form's answer carries one, changed or not: whether a form changed anything (a reset
    // asked for a known address, or an unknown one) is not for its headers to tell.
    if changed || (locked && visit.isForm) { response.setCookie(sessions.stateCookie(await feed?.mark())) }
    return response
  }

  /// The exchange requests pending in `after` that were not in `initial`: the queue must hold
  /// them before the state that does is saved.
  static func newlyPending(from initial: AppFeature.State, to after: AppFeature.State, of user: UserID) -> [ExchangeQueue.Entry] {
    after.progress.exchanges.filter { request in
      request.isPending && initial.progress.exchangeRequest(request.number)?.isPending != true
    }.map { ExchangeQueue.Entry(user: user, number: $0.number) }
  }

  /// A browser sends Origin with every form POST; one from another site (or "null") is refused.
  static func isSameOrigin(_ request: Request) -> Bool {
    guard let origin = request.headers[.origin] else { return true }
    guard let host = request.head.authority else { return false }
    return origin == "http://\(host)" || origin == "https://\(host)"
  }
}

/// What runs the fulfiller for requests a form has just queued (`RequestLoop.fulfilNow`).
final class FulfilNow: Sendable {
  private let action = Mutex<(@Sendable ([ExchangeQueue.Entry]) async -> Void)?>(nil)

  func set(_ action: @escaping @Sendable ([ExchangeQueue.Entry]) async -> Void) {
    self.action.withLock { $0 = action }
  }

  func run(_ entries: [ExchangeQueue.Entry]) async {
    await action.withLock { $0 }?(entries)
  }
}
