import Dependencies
import Foundation
import PointApp

/// The accounts behind `AccountClient`: bound to one request's session, it registers the
/// session's user under an address, and logs in, taking the session's guest into the account.
struct AccountService: Sendable {
  let accounts: any AccountStore
  let sessions: any SessionStore
  let users: any UserStateStore
  let hasher: PasswordHasher
  let throttle: LoginThrottle
  /// The decoded states the request loop keeps: an account's data read here is read as it reads it.
  let cache: SavedStateCache

  /// `client` is the address the login comes from, for the per-client limit (`nil`: unknown).
  func client(for session: Session, from client: String?, surveys: [SurveyID]) -> AccountClient {
    @Dependency(\.date.now) var now
    @Dependency(\.calendar) var calendar
    return AccountClient(
      register: { email, password in
        let account = Account(email: email.value, passwordHash: try await hasher.hash(password), user: session.user, created: now)
        guard try await accounts.create(account) else { throw AccountError.emailTaken }
        return SignIn(email: email)
      },
      logIn: { email, password in
        let now = now
        try throttle.admit(email: email.value, client: client, now: now)
        let account = try await accounts.account(AccountID(email: email.value))
        guard try await hasher.verify(password, against: account?.passwordHash), let account else {
          throttle.failed(email: email.value, now: now)
          throw AccountError.wrongCredentials
        }
        throttle.succeeded(email: email.value)
        guard account.user != session.user else { return SignIn(email: email) }
        let guest = try await UserFiles.history(of: session.user, in: users)
        let report = try await users.update(account.user) { [cache] data in
          var state = try await UserFiles.load(data, of: account.user, surveys: surveys + guest.answers.keys, from: users, cache: cache)
          let report = state.progress.absorb(guest, on: Day(now, in: calendar), at: now)
          state.flash = .loggedIn(report)
          return (try UserFiles.save(state).save, report)
        }
        return SignIn(email: email, merged: report)
      },
      confirmPassword: { password in
        let now = now
        guard let email = session.account?.email else { throw AccountError.unavailable }
        try throttle.admit(email: email, client: client, now: now)
        let account = try await accounts.account(AccountID(email: email))
        guard try await hasher.verify(password, against: account?.passwordHash), var record = try await sessions.record(session.id) else {
          throttle.failed(email: email, now: now)
          throw AccountError.wrongPassword
        }
        throttle.succeeded(email: email)
        record.passwordConfirmedAt = now
        try await sessions.save(record, as: session.id)
        return now
      },
      changePassword: { current, new in
        let now = now
        guard let email = session.account?.email else { throw AccountError.unavailable }
        try throttle.admit(email: email, client: client, now: now)
        let found = try await accounts.account(AccountID(email: email))
        guard try await hasher.verify(current, against: found?.passwordHash), var account = found else {
          throttle.failed(email: email, now: now)
          throw AccountError.wrongPassword
        }
        throttle.succeeded(email: email)
        account.passwordHash = try await hasher.hash(new)
        account.epoch += 1  // every session of the old password ends; this one is renewed
        try await accounts.update(account)
      }
    )
  }
}
