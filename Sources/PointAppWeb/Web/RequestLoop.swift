import Composable
import Dependencies
import Foundation
import Hummingbird
import PointApp
import Synchronization

/// One request of one user as one transaction: session → load state → send the request's action
/// → respond from where they led (`Navigation`) → save, only when something persistent changed.
/// The shell around `AppFeature`: controllers only decode requests into actions.
struct RequestLoop: Sendable {
  let users: any UserStateStore
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
  /// Surveys' quotas: a form's claims are made for its user, and settled once its update is over.
  let quotas: any QuotaStore
  /// Every finished answer's response, recorded with the update that saves the answer.
  let responses: ResponseStore
  /// Exchange requests a request left pending, recorded with the update that saves them.
  let exchanges: ExchangeQueue
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
    let prepared = try await accounts.prepare(action, from: client, now: dependencies.date.now)
    return try await run(session, request: request, isForm: true, client: client, prepared: prepared, action)
  }

  /// A page view first reads the user's file without the user's lock: most views change nothing,
  /// and those run side by side. A view that does change something (the day's first visit, a
  /// flash shown) is run again as an update, from the file as it is then.
  private func run(
    _ session: Session, request: Request, isForm: Bool, client: String? = nil, prepared: AccountService.Prepared? = nil,
    _ action: AppFeature.Action
  ) async throws -> Response {
    let path = request.uri.path
    // What a request answers, the ledger before and after it when it saves, and who the browser
    // is from now on when that changed.
    typealias Outcome = (
      response: Response, ledgers: (before: PointLedger, after: PointLedger)?, identity: AppFeature.IdentityChange?, mark: String?
    )
    let claimed = ClaimedPlaces()
    let recorded = Mutex<[SurveyResponse]>([])
    // `locked`: the user's update, which saves; a first look without the lock saves nothing.
    let transaction: @Sendable (Data?, _ locked: Bool) async throws -> (save: UserSave?, result: Outcome) = { [self] saved, locked in
      let catalogNow = (try? await catalog.fetchAll()) ?? []
      let surveys = catalogNow.map(\.id)
      var initial = try await UserFiles.load(saved, of: session.user, surveys: surveys, from: users, cache: cache)
      initial.account = session.account.flatMap { EmailAddress($0.email) }
      initial.passwordConfirmedAt = session.passwordConfirmedAt
      var dependencies = dependencies
      if isForm {
        dependencies.accounts = accounts.client(for: session, from: client, surveys: surveys, prepared: prepared)
        dependencies.quotas = claimed.client(for: session.user, in: quotas)
      }
      if initial.progress.ledger.archivedCount > 0 {
        dependencies.ledgerArchive = UserFiles.ledgerArchive(of: session.user, in: users)
      }
      let store = Store(initialState: initial, reducer: app, dependencies: dependencies)
      guard await store.send(action, deadline: effectDeadline) == .finished else {
        metrics.deadlineOverruns.increment()
        throw HTTPError(.serviceUnavailable, message: "effects timed out")
      }
      let response: Response
      switch Navigation.reply(to: store.state.destination, path: path, isForm: isForm) {
      case let .page(page):
        let state = store.state
        response = .html(Pages.render(page, state, csrf: { sessions.csrfToken(for: session) }, renderer: renderer))
        // A page shows the flash once.
        if state.flash != nil { await store.send(.flashShown) }
      case let .redirect(location):
        response = .redirect(to: location, type: .normal)
      case .error(.internalServerError):
        throw HTTPError(.internalServerError, message: "\(action) led nowhere")
      case let .error(status):
        response = .html(renderer.render("error", Pages.error(status)), status: status)
      }
      let after = store.state
      guard !session.isNew, SavedState.userData(of: after) != SavedState.userData(of: initial) else {
        return (nil, (response, nil, after.identityChange, nil))
      }
      var (save, savedState) = try UserFiles.save(after)
      if feed != nil { save.mark = ChangeFeed.newMark() }
      // The answers finished here, recorded as the save that keeps them is made (on PostgreSQL
      // in its transaction; elsewhere pending until the save is known).
      if locked {
        let finished = SurveyResponse.finished(
          from: initial.progress, to: after.progress,
          survey: { id in catalogNow.first { $0.id == id } }, respondent: { sessions.respondent(session.user, in: $0) }
        )
        recorded.withLock { $0 = finished }
        let queued = Self.newlyPending(from: initial, to: after, of: session.user)
        if !finished.isEmpty || !queued.isEmpty {
          save.before = {
            if !finished.isEmpty { try await responses.record(finished, of: session.user) }
            try await exchanges.add(queued)
          }
        }
      }
      cache.remember(session.user, bytes: save.state, state: savedState, surveys: surveys)
      return (save, (response, (initial.progress.ledger, after.progress.ledger), after.identityChange, save.mark))
    }
    var response: Response
    if session.isNew {
      response = try await transaction(nil, false).result.response
    } else if !isForm, case (nil, let viewed) = try await transaction(users.read(session.user), false) {
      response = viewed.response
    } else {
      let saved: Outcome
      do {
        saved = try await users.update(session.user) { try await transaction($0, true) }
      } catch {
        // Whether the answer a place was claimed for, or a response recorded for, was saved, its
        // saved state tells.
        try? await quotas.settle(claimed.all, of: session.user, from: users)
        let keys = recorded.withLock { $0 }.map { ResponseStore.Key($0.surveyID, $0.respondent) }
        try? await responses.settle(keys, of: session.user, from: users)
        throw error
      }
      if !quotas.placesCommitWithUpdate {
        // Saved: each place's answer is (a place left open by a failure here is settled at start).
        for survey in claimed.all { try? await quotas.settle(QuotaPlace(survey, session.user), keep: true) }
      }
      // Saved, and so is each response's answer (one left pending here is settled at start).
      try? await responses.settle(recorded.withLock { $0 }, of: session.user, saved: true)
      response = saved.response
      // The mark of the request's last write: on PostgreSQL other instances serve this browser
      // from their caches once they have heard it (`ChangeFeed`). The save's, when that was the
      // last; else (a form that saved nothing, a new session after the save) one of its own.
      var mark = saved.mark
      if let ledgers = saved.ledgers { metrics.recordSaved(from: ledgers.before, to: ledgers.after) }
      if let identity = saved.identity {
        // A new session id for the new identity: an id known before never carries it.
        let renewed = try await sessions.renew(session, as: identity, now: dependencies.date.now)
        response.setCookie(sessions.cookie(for: renewed))
        mark = await feed?.mark()
      } else if session.setsCookie {
        response.setCookie(sessions.cookie(for: session))
      }
      if mark == nil, isForm, let feed { mark = await feed.mark() }
      if saved.ledgers != nil || saved.identity != nil || mark != nil { response.setCookie(sessions.stateCookie(mark)) }
      return response
    }
    if session.setsCookie { response.setCookie(sessions.cookie(for: session)) }
    return response
  }

  /// The exchange requests pending in `after` that were not in `initial`: the queue must hold
  /// them before the state that does is saved.
  static func newlyPending(from initial: AppFeature.State, to after: AppFeature.State, of user: UserID) -> [ExchangeQueue.Entry] {
    after.progress.exchanges.filter { request in
      request.isPending && initial.progress.exchangeRequest(request.number)?.isPending != true
    }.map { ExchangeQueue.Entry(user: user, number: $0.number) }
  }

  /// Runs `action` on a user's saved state outside any request (the exchange sweep, the support
  /// desk) and saves what it changed, as a request's update would; `nil` for a user with no state.
  /// `before` runs with the states before and after, before the change is saved (an audit
  /// entry, which the change then follows: on PostgreSQL in its transaction).
  func send(
    _ action: AppFeature.Action, to user: UserID,
    before: (@Sendable (AppFeature.State, AppFeature.State) async throws -> Void)? = nil
  ) async throws -> AppFeature.State? {
    // The responses of answers approved here, rewritten as the save that pays them is made.
    let approved = Mutex<[ResponseStore.Key]>([])
    let outcome: ((PointLedger, PointLedger)?, AppFeature.State?)
    do {
      outcome = try await users.update(user) { [self] saved in
        guard saved != nil else { return (nil, (nil, nil)) }
        let surveys = ((try? await catalog.fetchAll()) ?? []).map(\.id)
        let initial = try await UserFiles.load(saved, of: user, surveys: surveys, from: users, cache: cache)
        var dependencies = dependencies
        if initial.progress.ledger.archivedCount > 0 {
          dependencies.ledgerArchive = UserFiles.ledgerArchive(of: user, in: users)
        }
        let store = Store(initialState: initial, reducer: app, dependencies: dependencies)
        guard await store.send(action, deadline: effectDeadline) == .finished else {
          metrics.deadlineOverruns.increment()
          throw HTTPError(.serviceUnavailable, message: "effects timed out")
        }
        let after = store.state
        guard SavedState.userData(of: after) != SavedState.userData(of: initial) else { return (nil, (nil, after)) }
        var (save, savedState) = try UserFiles.save(after)
        let queued = Self.newlyPending(from: initial, to: after, of: user)
        let approvals = SurveyResponse.approvals(from: initial.progress, to: after.progress).map { approval in
          (key: ResponseStore.Key(approval.survey, sessions.respondent(user, in: approval.survey)), paid: approval.paid)
        }
        approved.withLock { $0 = approvals.map(\.key) }
        save.before = {
          try await before?(initial, after)
          if !approvals.isEmpty { try await responses.approve(approvals, of: user) }
          try await exchanges.add(queued)
        }
        cache.remember(user, bytes: save.state, state: savedState, surveys: surveys)
        return (save, ((initial.progress.ledger, after.progress.ledger), after))
      }
    } catch {
      try? await responses.settle(approved.withLock { $0 }, of: user, from: users)
      throw error
    }
    try? await responses.settle(approved.withLock { $0 }, of: user, saved: true)
    let (ledgers, state) = outcome
    if let ledgers { metrics.recordSaved(from: ledgers.0, to: ledgers.1) }
    return state
  }

  /// A browser sends Origin with every form POST; one from another site (or "null") is refused.
  static func isSameOrigin(_ request: Request) -> Bool {
    guard let origin = request.headers[.origin] else { return true }
    guard let host = request.head.authority else { return false }
    return origin == "http://\(host)" || origin == "https://\(host)"
  }
}
