import Crypto
import Foundation
import Hummingbird

/// The session a request belongs to.
public struct Session: Sendable {
  public let id: SessionID
  /// The request carried no valid session cookie: a new anonymous user, not saved until they come
  /// back with the cookie.
  public let isNew: Bool
}

/// Cookie sessions and their CSRF tokens.
///
/// A token is HMAC-SHA256(server secret, session id): it is the same for every form of a session,
/// needs no storage, and cannot be forged or taken from another session.
public struct Sessions: Sendable {
  public static let cookieName = "pointapp_session"

  /// The secret as a key, made once: every page's token is signed with it. Never changed after
  /// `init` (swift-crypto does not mark its key `Sendable`).
  nonisolated(unsafe) private let key: SymmetricKey
  private let secureCookies: Bool

  public init(secret: Data, secureCookies: Bool) {
    key = SymmetricKey(data: secret)
    self.secureCookies = secureCookies
  }

  /// The request's session, or a new one when its cookie is missing, forged or malformed.
  public func session(for request: Request) -> Session {
    if let value = Self.sessionCookie(in: request.headers[values: .cookie]), let id = SessionID(value) {
      return Session(id: id, isNew: false)
    }
    return Session(id: .random(), isNew: true)
  }

  /// The value of the session cookie among `headers` (`name=value` pairs split by ";"). Only its
  /// name is looked for: `request.cookies` would parse every cookie, attributes and all, on every
  /// request.
  static func sessionCookie(in headers: [String]) -> Substring? {
    let prefix = "\(cookieName)=".utf8
    for header in headers {
      for pair in header.utf8.split(separator: UInt8(ascii: ";")) {
        let pair = pair.drop { $0 == UInt8(ascii: " ") }
        if pair.starts(with: prefix) { return Substring(pair.dropFirst(prefix.count)) }
      }
    }
    return nil
  }

  /// The cookie that carries a session: HttpOnly, SameSite=Lax, Secure when configured.
  public func cookie(for session: Session) -> Cookie {
    Cookie(
      name: Self.cookieName, value: session.id.rawValue, maxAge: 60 * 60 * 24 * 365, path: "/",
      secure: secureCookies, httpOnly: true, sameSite: .lax
    )
  }

  /// A cookie whose value is new each time the user's saved state changes. Chrome keeps a page in
  /// its back/forward cache despite `Cache-Control: no-store` unless a cookie changed since it
  /// was shown: with this one, Back after a form shows the page as it is now (the balance just
  /// paid), never the page as it was before the form.
  public func stateCookie() -> Cookie {
    Cookie(name: "pointapp_state", value: SessionID.random().rawValue.prefix(16).description, path: "/", secure: secureCookies, httpOnly: true, sameSite: .lax)
  }

  public func csrfToken(for session: Session) -> String {
    hex(HMAC<SHA256>.authenticationCode(for: Data(session.id.rawValue.utf8), using: key))
  }

  /// Whether `token` is this session's CSRF token, compared in constant time.
  public func isValid(csrfToken token: String, for session: Session) -> Bool {
    let expected = Array(csrfToken(for: session).utf8)
    let given = Array(token.utf8)
    guard expected.count == given.count else { return false }
    return zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

  /// Reads the server secret from `url`, creating it (32 random bytes, mode 0600) on first run.
  public static func loadOrCreateSecret(at url: URL) throws -> Data {
    if let secret = try DurableFile.read(url.path), secret.count == 32 { return secret }
    var generator = SystemRandomNumberGenerator()
    let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try DurableFile.write(secret, to: url.path)
    return secret
  }
}
