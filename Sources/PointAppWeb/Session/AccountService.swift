import Dependencies
import Foundation
import PointApp
import Synchronization

/// The accounts behind `AccountClient`: bound to one request's session, it registers the
/// session's user under an address, and logs in, taking the session's guest into the account.
///
/// It runs inside the session user's lock (every form is an update of that user), and ends the
/// session there once it has signed in: a second sign-in of the same session queued behind it
/// (a double click, two tabs, a retry after a crash) finds it ended and changes nothing, so a
/// guest is taken into one account once, and a session that registered never stays a guest.
struct AccountService: Sendable {
  let accounts: AccountRecords
  let sessions: Sessions
  let users: any UserStateStore
  let hasher: PasswordHasher
  let throttle: any LoginThrottle
  /// The decoded states the request loop keeps: an account's data read here is read as it reads it.
  let cache: SavedStateCache
  /// The responses of the guest's answers that move into the account go under its name.
  let responses: ResponseStore

  /// `client` is the address the form comes from, for the per-client limit (`nil`: unknown).
  func client(for session: Session, from client: String?, surveys: [SurveyID]) -> AccountClient {
    @Dependency(\.date.now) var now
    @Dependency(\.calendar) var calendar

    /// Refuses a session that ended since the request began (its record is read again here,
    /// inside the user's lock).
    @Sendable func stillCurrent() async throws {
      guard let record = try await sessions.store.read(session.id)?.record, record.user == session.user,
        record.account == session.account?.id
      else {
        throw AccountError.sessionEnded
      }
    }

    return AccountClient(
      register: { email, password in
        let now = now
        try await throttle.admit(client: client, now: now)
        try await stillCurrent()
        let account = Account(email: email.value, passwordHash: try await hasher.hash(password), user: session.user, created: now)
        guard try await accounts.create(account, as: account.id) else { throw AccountError.emailTaken }
        try await sessions.end(session.id, at: now)
        return SignIn(email: email)
      },
      logIn: { email, password in
        let now = now
        try await throttle.admit(email: email.value, client: client, now: now)
        try await stillCurrent()
        let account = try await accounts.read(AccountID(email: email.value))?.record
        guard try await hasher.verify(password, against: account?.passwordHash), let account else {
          throw AccountError.wrongCredentials
        }
        try await throttle.succeeded(email: email.value)
        guard account.user != session.user else {
          try await sessions.end(session.id, at: now)
          return SignIn(email: email)
        }
        let guest = try await UserFiles.history(of: session.user, in: users)
        let moves = Mutex<[(from: ResponseStore.Key, to: ResponseStore.Key)]>([])
        let report: MergeReport
        do {
          report = try await users.update(account.user) { [cache, responses] data in
            var state = try await UserFiles.load(data, of: account.user, surveys: surveys + guest.answers.keys, from: users, cache: cache)
            let report = state.progress.absorb(guest, on: Day(now, in: calendar), at: now)
            state.flash = .loggedIn(report)
            // The pseudonym follows the account: the answers that moved are the account's now.
            let moved = guest.answers.keys.filter { !report.duplicateSurveys.contains($0) }.sorted { $0.rawValue < $1.rawValue }
            let renamed = moved.map { survey in
              (from: ResponseStore.Key(survey, sessions.respondent(session.user, in: survey)),
               to: ResponseStore.Key(survey, sessions.respondent(account.user, in: survey)))
            }
            moves.withLock { $0 = renamed }
            try await responses.move(renamed, of: account.user)
            return (try UserFiles.save(state).save, report)
          }
        } catch {
          try? await responses.settle(moves.withLock { $0 }.map(\.to), of: account.user, from: users)
          throw error
        }
        try? await responses.settle(moves.withLock { $0 }.map(\.to), of: account.user, saved: true)
        try await sessions.end(session.id, at: now)
        return SignIn(email: email, merged: report)
      },
      confirmPassword: { password in
        let now = now
        guard let email = session.account?.email else { throw AccountError.sessionEnded }
        try await throttle.admit(email: email, client: client, now: now)
        let account = try await accounts.read(AccountID(email: email))?.record
        guard try await hasher.verify(password, against: account?.passwordHash) else { throw AccountError.wrongPassword }
        try await throttle.succeeded(email: email)
        // Written over the record as read: a logout that came between is never undone.
        try await sessions.store.modify(session.id) { record in
          guard var record, record.user != nil else { throw AccountError.sessionEnded }
          record.passwordConfirmedAt = now
          return (record, ())
        }
        return now
      },
      changePassword: { current, new in
        let now = now
        guard let email = session.account?.email else { throw AccountError.sessionEnded }
        try await throttle.admit(email: email, client: client, now: now)
        let id = AccountID(email: email)
        guard try await hasher.verify(current, against: try await accounts.read(id)?.record.passwordHash) else {
          throw AccountError.wrongPassword
        }
        try await throttle.succeeded(email: email)
        let hash = try await hasher.hash(new)
        // Over the account as it is after the hashing: what changed meanwhile (an epoch moved
        // on) is kept.
        try await accounts.modify(id) { account in
          guard var account else { throw AccountError.sessionEnded }
          account.passwordHash = hash
          account.epoch += 1  // every session of the old password ends; this one is renewed
          return (account, ())
        }
      }
    )
  }
}
