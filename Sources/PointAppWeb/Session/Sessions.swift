import Crypto
import Foundation
import Hummingbird
import PointApp
import Synchronization

/// The session a request belongs to.
public struct Session: Sendable {
  public let id: SessionID
  /// Whose data the request reads and changes.
  public let user: UserID
  /// The account signed in, if any.
  public let account: Account?
  /// The request carried no session cookie, or one of an ended session: a new visitor, saved
  /// nothing until they come back with the cookie this response sets.
  public let isNew: Bool
  /// The response sets the session cookie: a new visitor's, or a session's new id.
  public let setsCookie: Bool
  /// When the account's password was last typed in this session.
  public var passwordConfirmedAt: Date? = nil
}

/// Sessions as server-side records (`SessionRecords`) behind a cookie that carries their id and the
/// server's mark on it, and their CSRF tokens. A session leads to a user's data and, once signed in, an account; its
/// id is never the user's. It ends after a while without requests (`guestIdleLimit`,
/// `accountIdleLimit`), at logout, and when its account logs out of every device.
///
/// A CSRF token is HMAC-SHA256(server secret, session id): the same for every form of a
/// session, needs no storage, and cannot be forged or taken from another session.
public struct Sessions: Sendable {
  public static let cookieName = "pointapp_session"
  /// The cookie's name when secure cookies are on: the prefix makes browsers refuse it unless
  /// it is Secure, for the whole site and set by the site itself.
  public static let secureCookieName = "__Host-pointapp_session"
  /// A guest's session lasts as long as its cookie: their points are nowhere else.
  public static let guestIdleLimit: TimeInterval = 60 * 60 * 24 * 365
  public static let accountIdleLimit: TimeInterval = 60 * 60 * 24 * 30
  /// How stale a record's `lastSeen` may be before a request writes it again.
  public static let touchInterval: TimeInterval = 60 * 60

  /// The secret as a key, made once: every page's token is signed with it. Never changed after
  /// `init` (swift-crypto does not mark its key `Sendable`).
  nonisolated(unsafe) private let key: SymmetricKey
  private let secureCookies: Bool
  let store: SessionRecords
  /// The marks of the sessions seen lately: a page view checks its cookie's without an HMAC.
  private let marks = RecentlyUsedCache<SessionID, String>(generation: 5000)
  let accounts: AccountRecords

  public init(secret: Data, secureCookies: Bool, store: SessionRecords, accounts: AccountRecords) {
    key = SymmetricKey(data: secret)
    self.secureCookies = secureCookies
    self.store = store
    self.accounts = accounts
  }

  /// The request's session. The cookie carries a session id and the server's mark that it issued
  /// it (`<id>.<mark>`), and nothing else is taken: an id it issued with no record yet is the
  /// second request of a new visitor, whose record is made now, with a user of their own.
  /// Anything else (missing, malformed, unmarked, marked wrongly, made up, ended, expired) is a
  /// new visitor, under an id of the server's own: no id an operator, a log or the data folder
  /// shows (a user's, a record's name) leads anywhere without the server's mark.
  public func session(for request: Request, now: Date) async throws -> Session {
    guard let raw = Self.sessionCookie(named: cookieName, in: request.headers[values: .cookie]), let id = issuedID(raw) else {
      return newVisitor()
    }
    if let read = try await store.read(id) {
      let record = read.record
      guard let user = record.user else { return newVisitor() }
      var account: Account?
      if let accountID = record.account {
        guard let found = try await accounts.read(accountID)?.record, found.epoch == record.epoch else { return newVisitor() }
        account = found
      }
      let limit = account == nil ? Self.guestIdleLimit : Self.accountIdleLimit
      guard now.timeIntervalSince(record.lastSeen) < limit else { return newVisitor() }
      if now.timeIntervalSince(record.lastSeen) > Self.touchInterval {
        var touched = record
        touched.lastSeen = now
        // Written only over the record as read: a logout that came between is never undone.
        guard try await store.replace(id, with: touched, at: read.version) else { return try await session(for: request, now: now) }
      }
      return Session(id: id, user: user, account: account, isNew: false, setsCookie: false, passwordConfirmedAt: record.passwordConfirmedAt)
    }
    let record = SessionRecord(user: .random(), lastSeen: now)
    guard try await store.create(record, as: id) else { return try await session(for: request, now: now) }
    return Session(id: id, user: record.user!, account: nil, isNew: false, setsCookie: false)
  }

  /// Ends `session` and starts another for `identity`: at registration, login and logout, so
  /// that an id known before never carries the new identity. Logging out starts a new guest.
  public func renew(_ session: Session, as identity: AppFeature.IdentityChange, now: Date) async throws -> Session {
    var account: Account?
    if case let .signedIn(email) = identity {
      guard let found = try await accounts.read(AccountID(email: email.value))?.record else {
        throw HTTPError(.internalServerError, message: "the account signed in to is missing")
      }
      account = found
    }
    if case .signedOutEverywhere = identity, let id = session.account?.id {
      // Every session of an older epoch is refused from now on.
      try await accounts.modify(id) { account in
        (account.map { var ended = $0; ended.epoch += 1; return ended }, ())
      }
    }
    let user = account?.user ?? .random()
    try await end(session.id, at: now)
    let id = SessionID.random()
    // The password was typed just now when signing in.
    let record = SessionRecord(user: user, account: account?.id, epoch: account?.epoch ?? 0, lastSeen: now, passwordConfirmedAt: account == nil ? nil : now)
    guard try await store.create(record, as: id) else { throw HTTPError(.internalServerError, message: "a new session id was taken") }
    return Session(id: id, user: user, account: account, isNew: false, setsCookie: true, passwordConfirmedAt: record.passwordConfirmedAt)
  }

  /// A guest's session of `user` started outside any request (the benchmark's seeded user): the
  /// session cookie's value, as a response would set it.
  public func startGuest(_ user: UserID, now: Date) async throws -> String {
    let id = SessionID.random()
    guard try await store.create(SessionRecord(user: user, lastSeen: now), as: id) else {
      throw HTTPError(.internalServerError, message: "a new session id was taken")
    }
    return "\(id.rawValue).\(mark(id))"
  }

  /// Ends the session `id`, whatever was written to it meanwhile: its id is never taken up again.
  func end(_ id: SessionID, at now: Date) async throws {
    try await store.modify(id) { _ in (SessionRecord(user: nil, lastSeen: now), ()) }
  }

  /// Deletes the sessions after `cursor` among the next `limit` that have expired (their idle
  /// limit passed, or ended as long ago as a guest's): a bounded step of the periodic pruning.
  /// Returns where the next step starts (`nil`: from the first again) and how many went.
  public func pruneExpired(after cursor: SessionID?, limit: Int, now: Date) async throws -> (next: SessionID?, pruned: Int) {
    let ids = try await store.keys(after: cursor, limit: limit)
    var pruned = 0
    for id in ids {
      guard let read = try await store.read(id) else { continue }
      let idle =
        if read.record.operator != nil { OperatorSessions.idleLimit }
        else if read.record.user != nil && read.record.account != nil { Self.accountIdleLimit }
        else { Self.guestIdleLimit }
      // Deleted only as read: a request that touched it meanwhile keeps it.
      if now.timeIntervalSince(read.record.lastSeen) >= idle, try await store.delete(id, at: read.version) { pruned += 1 }
    }
    return (ids.count < limit ? nil : ids.last, pruned)
  }

  private func newVisitor() -> Session {
    Session(id: .random(), user: .random(), account: nil, isNew: true, setsCookie: true)
  }

  private var cookieName: String { secureCookies ? Self.secureCookieName : Self.cookieName }

  /// The value of the session cookie among `headers` (`name=value` pairs split by ";"). Only its
  /// name is looked for: `request.cookies` would parse every cookie, attributes and all, on every
  /// request.
  static func sessionCookie(named cookieName: String, in headers: [String]) -> Substring? {
    let prefix = "\(cookieName)=".utf8
    for header in headers {
      for pair in header.utf8.split(separator: UInt8(ascii: ";")) {
        let pair = pair.drop { $0 == UInt8(ascii: " ") }
        if pair.starts(with: prefix) { return Substring(pair.dropFirst(prefix.count)) }
      }
    }
    return nil
  }

  /// The cookie that carries a session: HttpOnly, SameSite=Lax, Secure and `__Host-` when
  /// configured.
  public func cookie(for session: Session) -> Cookie {
    Cookie(
      name: cookieName, value: "\(session.id.rawValue).\(mark(session.id))", maxAge: 60 * 60 * 24 * 365, path: "/",
      secure: secureCookies, httpOnly: true, sameSite: .lax
    )
  }

  /// A cookie whose value is new each time the user's saved state changes. Chrome keeps a page in
  /// its back/forward cache despite `Cache-Control: no-store` unless a cookie changed since it
  /// was shown: with this one, Back after a form shows the page as it is now (the balance just
  /// paid), never the page as it was before the form.
  ///
  /// On PostgreSQL its value is the `ChangeFeed`'s mark of the writes before it.
  public func stateCookie(_ mark: String? = nil) -> Cookie {
    Cookie(
      name: Self.stateCookieName, value: mark ?? String(SessionID.random().rawValue.prefix(16)), path: "/", secure: secureCookies,
      httpOnly: true, sameSite: .lax
    )
  }

  public static let stateCookieName = "pointapp_state"

  /// A user's name in one survey's responses: `r-` and 16 hex digits of
  /// HMAC-SHA256(secret, "respondent <user> <survey>"). The same for the user within the survey,
  /// another in another survey, and nothing leads from it to the user without the secret.
  func respondent(_ user: UserID, in survey: SurveyID) -> String {
    "r-" + hex(HMAC<SHA256>.authenticationCode(for: Data("respondent \(user.rawValue) \(survey.rawValue)".utf8), using: key).prefix(8))
  }

  /// What a notice's unsubscribe link carries (`/unsubscribe?token=`): the user's id, then 32 hex
  /// digits of HMAC-SHA256(secret, "unsubscribe <user>"). It stops that user's notices, and
  /// nothing else: no session, no page of theirs.
  func unsubscribeToken(for user: UserID) -> String {
    user.rawValue + hex(HMAC<SHA256>.authenticationCode(for: Data("unsubscribe \(user.rawValue)".utf8), using: key).prefix(16))
  }

  /// The user an unsubscribe token is for; `nil` for one the server did not make.
  func unsubscriber(_ token: String) -> UserID? {
    guard token.utf8.count == 64, let user = UserID(String(token.prefix(32))), constantTimeEqual(unsubscribeToken(for: user), token) else { return nil }
    return user
  }

  /// The server's mark on a session id it issued: HMAC-SHA256(secret, "issued " + id), 16 hex
  /// digits. (The CSRF token signs the id alone: the two never stand for each other.)
  func mark(_ id: SessionID) -> String {
    marks.value(of: id) { hex(HMAC<SHA256>.authenticationCode(for: Data("issued \(id.rawValue)".utf8), using: key).prefix(8)) }
  }

  /// The id a session cookie's value (`<id>.<mark>`, members' and operators' alike) names, when
  /// the server issued it: `nil` for any other value. Cut at its first dot by bytes (a `Character`
  /// split cost a view 1 % more).
  func issuedID(_ value: Substring) -> SessionID? {
    guard let dot = value.utf8.firstIndex(of: UInt8(ascii: ".")), let id = SessionID(value[..<dot]),
      constantTimeEqual(mark(id), value[value.utf8.index(after: dot)...])
    else { return nil }
    return id
  }

  public func csrfToken(for session: Session) -> String {
    csrfToken(for: session.id)
  }

  func csrfToken(for id: SessionID) -> String {
    hex(HMAC<SHA256>.authenticationCode(for: Data(id.rawValue.utf8), using: key))
  }

  /// Whether `token` is this session's CSRF token, compared in constant time.
  public func isValid(csrfToken token: String, for session: Session) -> Bool {
    isValid(csrfToken: token, for: session.id)
  }

  func isValid(csrfToken token: String, for id: SessionID) -> Bool {
    constantTimeEqual(csrfToken(for: id), token)
  }

  /// The key that signs cookies and CSRF tokens (`settings/session-secret`, 32 random bytes),
  /// made on the first start: of processes and instances starting together, one creates it and
  /// every one reads that one (each keeping its own would refuse the others' cookies).
  public static func secret(in backend: any RecordBackend) async throws -> Data {
    let settings = Records<RecordName, Data>(backend.table(.settings))
    _ = try await settings.create(Data(randomBytes(32)), as: secretName)
    guard let secret = try await settings.read(secretName)?.record, secret.count == 32 else {
      throw HTTPError(.internalServerError, message: "the stored session secret is not 32 bytes")
    }
    return secret
  }

  static let secretName = RecordName("session-secret")
}

/// Where the periodic pruning of expired sessions stands: each step goes on from the last.
final class SessionPruning: Sendable {
  let sessions: Sessions
  let now: @Sendable () -> Date
  private let cursor = Mutex<SessionID?>(nil)

  init(sessions: Sessions, now: @escaping @Sendable () -> Date) {
    self.sessions = sessions
    self.now = now
  }

  /// Prunes the next 500 records; how many went.
  func step() async throws -> Int {
    let step = try await sessions.pruneExpired(after: cursor.withLock { $0 }, limit: 500, now: now())
    cursor.withLock { $0 = step.next }
    return step.pruned
  }
}
