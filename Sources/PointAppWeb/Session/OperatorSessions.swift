import Foundation
import Hummingbird
import PointApp

/// The session of a browser on the console (`/admin`): who is signed in (`nil`: nobody yet), as
/// what, and where their second factor stands.
public struct OperatorSession: Sendable {
  public let id: SessionID
  public let email: String?
  /// The response sets the console's cookie: a new id.
  public let setsCookie: Bool
  public var role: OperatorRole? = nil
  /// Whether the operator has an authenticator enrolled.
  public var enrolled = false
  /// When the second factor was last given in this session (`nil`: not yet).
  public var secondFactorAt: Date? = nil
  public var revealed: OperatorFeature.Revealed? = nil

  /// Where the second factor stands, as the console's feature reads it.
  var secondFactor: OperatorFeature.SecondFactor? {
    guard email != nil else { return nil }
    return secondFactorAt.map { .given(at: $0) } ?? .pending(enrolled: enrolled)
  }
}

/// Operators' sessions: records in the sessions store with an operator and no user, behind a
/// cookie of their own (`pointapp_admin`, `SameSite=Strict`, gone when the browser closes), with
/// the same marks, CSRF tokens and compare-and-swap writes as users' sessions, and a shorter idle
/// limit. A user's cookie never reaches an operator's record and the reverse: each side reads only
/// its own cookie, and a record of the other kind is no session to it.
public struct OperatorSessions: Sendable {
  public static let cookieName = "pointapp_admin"
  public static let secureCookieName = "__Host-pointapp_admin"
  public static let idleLimit: TimeInterval = 8 * 60 * 60

  let sessions: Sessions
  let operators: OperatorRecords
  let secureCookies: Bool

  func session(for request: Request, now: Date) async throws -> OperatorSession {
    let cookies = request.headers[values: .cookie]
    guard let raw = Sessions.sessionCookie(named: secureCookies ? Self.secureCookieName : Self.cookieName, in: cookies),
      let id = sessions.issuedID(raw)
    else { return signedOut() }
    // An id issued to a signed-out browser keeps its record-less state, so that the sign-in
    // page's token holds for its form.
    guard let read = try await sessions.store.read(id) else { return OperatorSession(id: id, email: nil, setsCookie: false) }
    let record = read.record
    guard record.user == nil, let operatorID = record.operator, let found = try await operators.read(operatorID)?.record,
      !found.disabled, found.epoch == record.epoch, now.timeIntervalSince(record.lastSeen) < Self.idleLimit
    else { return signedOut() }
    if now.timeIntervalSince(record.lastSeen) > Sessions.touchInterval / 6 {
      var touched = record
      touched.lastSeen = now
      // Over the record as read: a sign-out that came between is never undone.
      guard try await sessions.store.replace(id, with: touched, at: read.version) else { return try await session(for: request, now: now) }
    }
    return OperatorSession(
      id: id, email: found.email, setsCookie: false, role: found.role, enrolled: found.totp != nil,
      secondFactorAt: record.secondFactorAt, revealed: record.revealed
    )
  }

  /// Changes the session's record (what the second factor gave it, what it shows once), over
  /// the record as it is: a sign-out that came between stays.
  func update(_ session: OperatorSession, _ change: @escaping @Sendable (inout SessionRecord) throws -> Void) async throws {
    try await sessions.store.modify(session.id) { record in
      guard var record, record.operator != nil else { throw OperatorError.notFound }
      try change(&record)
      return (record, ())
    }
  }

  /// Ends `session` (if it had a record) and starts another, signed in as `email`'s operator.
  func signIn(_ session: OperatorSession, as email: String, now: Date) async throws -> OperatorSession {
    guard let found = try await operators.read(OperatorID(email: email))?.record else {
      throw HTTPError(.internalServerError, message: "the operator signed in to is missing")
    }
    if try await sessions.store.read(session.id) != nil { try await sessions.end(session.id, at: now) }
    let id = SessionID.random()
    let record = SessionRecord(user: nil, epoch: found.epoch, lastSeen: now, operator: found.id)
    guard try await sessions.store.create(record, as: id) else { throw HTTPError(.internalServerError, message: "a new session id was taken") }
    return OperatorSession(id: id, email: found.email, setsCookie: true)
  }

  /// Ends `session`; the browser is signed out under a new id.
  func signOut(_ session: OperatorSession, now: Date) async throws -> OperatorSession {
    try await sessions.end(session.id, at: now)
    return signedOut()
  }

  /// Whether the request carries a user's session cookie (a guest's or an account's).
  func carriesUserSession(_ request: Request) -> Bool {
    let cookies = request.headers[values: .cookie]
    return Sessions.sessionCookie(named: Sessions.cookieName, in: cookies) != nil
      || Sessions.sessionCookie(named: Sessions.secureCookieName, in: cookies) != nil
  }

  func cookie(for session: OperatorSession) -> Cookie {
    Cookie(
      name: secureCookies ? Self.secureCookieName : Self.cookieName, value: "\(session.id.rawValue).\(sessions.mark(session.id))",
      path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict
    )
  }

  func csrfToken(for session: OperatorSession) -> String {
    sessions.csrfToken(for: session.id)
  }

  func isValid(csrfToken token: String, for session: OperatorSession) -> Bool {
    sessions.isValid(csrfToken: token, for: session.id)
  }

  private func signedOut() -> OperatorSession {
    OperatorSession(id: .random(), email: nil, setsCookie: true)
  }
}
