import Dependencies
import Foundation
import PointApp

/// The accounts behind `AccountClient`: bound to one request's session, it registers the
/// session's user under an address, and logs in, taking the session's guest into the account.
///
/// It runs inside the session user's lock (every form is an update of that user), and ends the
/// session there once it has signed in: a second sign-in of the same session queued behind it
/// (a double click, two tabs, a retry after a crash) finds it ended and changes nothing, so a
/// guest is taken into one account once, and a session that registered never stays a guest.
///
/// What is slow is done before that lock (`prepare`): a login's limits are counted and its
/// password checked, a registration's password hashed, outside the user's lock and any
/// transaction, so that a burst of logins queues for bcrypt's threads without holding a user or a
/// database connection. Inside, the client uses what was prepared.
struct AccountService: Sendable {
  let accounts: AccountRecords
  let sessions: Sessions
  let users: UserStates
  let hasher: PasswordHasher
  let throttle: LoginThrottle
  /// The decoded states the request loop keeps: an account's data read here is read as it reads it.
  let cache: SavedStateCache
  /// The responses of the guest's answers that move into the account go under its name.
  let responses: ResponseStore

  /// What a sign-in form needs done before the user's update: for a login, the limits counted and
  /// the password checked against the account as it is now; for a registration, the limit counted
  /// and the password hashed. Only for a form the feature will send on (a well-formed address and
  /// a password it accepts); `nil` for any other action.
  func prepare(_ action: AppFeature.Action, for session: Session, from client: String?, now: Date) async throws -> Prepared? {
    if case let .passwordReset(.resetSubmitted(token, password)) = action, PasswordPolicy.problem(with: password.value) == nil {
      return .reset(token: token, try await hashForReset(token.value, password.value, from: client, now: now))
    }
    if case let .withdrawal(.submitted(password)) = action, let email = session.account?.email, !password.value.isEmpty {
      return .withdraw(try await checkPassword(email, password.value, from: client, now: now))
    }
    if case let .addressChange(.submitted(newEmail, password)) = action, let email = session.account?.email, !password.value.isEmpty,
      let address = EmailAddress(newEmail), address.value != email
    {
      return .addressChange(try await checkPassword(email, password.value, from: client, now: now))
    }
    guard case let .signInForm(.submitted(kind, email, password)) = action, let address = EmailAddress(email) else { return nil }
    switch kind {
    case .logIn:
      guard !password.value.isEmpty else { return nil }
      return .logIn(email: address.value, try await checkLogin(address.value, password.value, from: client, now: now))
    case .register:
      guard PasswordPolicy.problem(with: password.value) == nil else { return nil }
      return .register(email: address.value, try await hashForRegistration(password.value, from: client, now: now))
    }
  }

  /// The login's limits counted and its password checked: the account it matched, or why not.
  private func checkLogin(_ email: String, _ password: String, from client: String?, now: Date) async throws -> Result<Account, AccountError> {
    do {
      try await throttle.admit(email: email, client: client, now: now)
    } catch AccountError.throttled {
      return .failure(.throttled)
    }
    let account = try await accounts.read(AccountID(email: email))?.record
    guard try await hasher.verify(password, against: account?.passwordHash), let account else { return .failure(.wrongCredentials) }
    try await throttle.succeeded(email: email)
    return .success(account)
  }

  /// The signed-in account's password checked within its limits: the account it matched, or why not.
  private func checkPassword(_ email: String, _ password: String, from client: String?, now: Date) async throws -> Result<Account, AccountError> {
    switch try await checkLogin(email, password, from: client, now: now) {
    case .failure(.wrongCredentials): .failure(.wrongPassword)
    case let other: other
    }
  }

  /// The registration's attempt counted and its password hashed, or why not.
  private func hashForRegistration(_ password: String, from client: String?, now: Date) async throws -> Result<String, AccountError> {
    do {
      try await throttle.admit(client: client, now: now)
    } catch AccountError.throttled {
      return .failure(.throttled)
    }
    return .success(try await hasher.hash(password))
  }

  /// A reset's new password hashed, once the client is within its limits and the link opens
  /// the account as it is now (bcrypt is never spent on a link that does not), or why not.
  private func hashForReset(_ token: String, _ password: String, from client: String?, now: Date) async throws -> Result<String, AccountError> {
    do {
      try await throttle.admit(client: client, now: now)
    } catch AccountError.throttled {
      return .failure(.throttled)
    }
    guard let (id, secret) = PendingLink.parse(token), let link = try await accounts.read(id)?.record.reset, link.opens(with: secret, at: now) else {
      return .failure(.invalidResetLink)
    }
    return .success(try await hasher.hash(password))
  }

  /// A sign-in form's work done before the user's update.
  enum Prepared: Sendable {
    /// The account whose password the login's matched, or why it was refused.
    case logIn(email: String, Result<Account, AccountError>)
    /// The registration's password hashed, or why it was refused.
    case register(email: String, Result<String, AccountError>)
    /// A reset link's new password hashed, or why it was not.
    case reset(token: Secret, Result<String, AccountError>)
    /// The password of the account that leaves, or moves, checked, or why it was refused.
    case withdraw(Result<Account, AccountError>)
    case addressChange(Result<Account, AccountError>)
  }

  /// `client` is the address the form comes from, for the per-client limit (`nil`: unknown);
  /// `prepared` what `prepare` did for this form.
  func client(for session: Session, from client: String?, surveys: [SurveyID], prepared: Prepared? = nil) -> AccountClient {
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

    /// The account as this update holds it: read for update, so that no other writer changes it
    /// before the update commits.
    @Sendable func held(_ id: AccountID) async throws -> Versioned<Account>? {
      guard try await accounts.storage.readForUpdate(id.rawValue) != nil else { return nil }
      return try await accounts.read(id)
    }

    return AccountClient(
      register: { email, password in
        let now = now
        // Prepared before the lock; only a form sent some other way is hashed here.
        let hash: Result<String, AccountError> =
          if case let .register(prepared, result)? = prepared, prepared == email.value { result }
          else { try await hashForRegistration(password, from: client, now: now) }
        let passwordHash = try hash.get()
        try await stillCurrent()
        let account = Account(email: email.value, passwordHash: passwordHash, user: session.user, created: now)
        guard try await accounts.create(account, as: account.id) else { throw AccountError.emailTaken }
        try await sessions.end(session.id, at: now)
        return SignIn(email: email)
      },
      logIn: { email, password in
        let now = now
        // Checked before the lock; only a form sent some other way is checked here.
        let check: Result<Account, AccountError> =
          if case let .logIn(prepared, result)? = prepared, prepared == email.value { result }
          else { try await checkLogin(email.value, password, from: client, now: now) }
        let checked = try check.get()
        try await stillCurrent()
        // The password matched the account as it was read before the lock: one changed since (on
        // another device) is not the one typed here.
        guard let account = try await accounts.read(AccountID(email: email.value))?.record, account.passwordHash == checked.passwordHash else {
          throw AccountError.wrongCredentials
        }
        guard account.user != session.user else {
          try await sessions.end(session.id, at: now)
          return SignIn(email: email)
        }
        let guest = try await UserFiles.history(of: session.user, in: users)
        let report = try await users.update(account.user) { [cache, responses] data in
          var state = try await UserFiles.load(data, of: account.user, surveys: surveys + guest.answers.keys, from: users, cache: cache)
          let report = state.progress.absorb(guest, on: Day(now, in: calendar), at: now)
          state.flash = .loggedIn(report)
          // The pseudonym follows the account: the responses of the answers that moved go under
          // its name with the save.
          let moved = guest.answers.keys.filter { !report.duplicateSurveys.contains($0) }.sorted { $0.rawValue < $1.rawValue }
          let renamed = moved.map { survey in
            (from: ResponseStore.Key(survey, sessions.respondent(session.user, in: survey)),
             to: ResponseStore.Key(survey, sessions.respondent(account.user, in: survey)))
          }
          var save = try UserFiles.save(state).save
          save.before = { try await responses.move(renamed) }
          return (save, report)
        }
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
          account.reset = nil  // a reset link asked for before is not a way back in
          account.epoch += 1  // every session of the old password ends; this one is renewed
          return (account, ())
        }
      },
      issueVerification: { email, expires in
        let now = now
        let id = AccountID(email: email.value)
        return try await accounts.modify(id) { account in
          guard var account else { return (nil, nil) }
          // Checked again on the account as it is: requests at once see each other's links here.
          guard account.verifiedAt == nil else { throw AccountError.alreadyVerified }
          guard LinkLimit.allows(after: account.linksSent ?? [], at: now) else { throw AccountError.tooManyLinks }
          let (token, link) = PendingLink.issue(for: id, expires: expires)
          account.verification = link
          account.linksSent = Array(((account.linksSent ?? []) + [now]).suffix(5))
          return (account, Secret(token))
        }
      },
      verifyAddress: { token in
        let now = now
        // Guessing counts as logins do; and a wrong link says only that, whatever the account
        // (its id is the address's hash: the answer must not tell whether it exists or is verified).
        try await throttle.admit(client: client, now: now)
        guard let (id, secret) = PendingLink.parse(token.value) else { throw AccountError.invalidLink }
        return try await accounts.modify(id) { account in
          guard var account, let address = EmailAddress(account.email), let link = account.verification, link.opens(with: secret, at: now) else {
            throw AccountError.invalidLink
          }
          (account.verifiedAt, account.verification) = (now, nil)
          return (account, address)
        }
      },
      issueReset: { email, expires in
        let now = now
        // The client's attempts count as logins do; the address's links within `LinkLimit`.
        try await throttle.admit(client: client, now: now)
        let id = AccountID(email: email.value)
        return try await accounts.modify(id) { account in
          guard var account, LinkLimit.allows(after: account.resetsSent ?? [], at: now) else { return (nil, nil) }
          let (token, link) = PendingLink.issue(for: id, expires: expires)
          account.reset = link
          account.resetsSent = Array(((account.resetsSent ?? []) + [now]).suffix(5))
          return (account, Secret(token))
        }
      },
      resetPassword: { token, password in
        let now = now
        // Hashed before the lock; only a form sent some other way is hashed here.
        let checked: Result<String, AccountError> =
          if case let .reset(preparedFor, result)? = prepared, preparedFor == token { result }
          else { try await hashForReset(token.value, password, from: client, now: now) }
        let hash = try checked.get()
        guard let (id, secret) = PendingLink.parse(token.value) else { throw AccountError.invalidResetLink }
        let address = try await accounts.modify(id) { account in
          guard var account, let link = account.reset, link.opens(with: secret, at: now), let address = EmailAddress(account.email) else {
            throw AccountError.invalidResetLink
          }
          (account.passwordHash, account.reset) = (hash, nil)
          account.epoch += 1  // every session of the account ends
          // The link reached the address: it is the member's.
          if account.verifiedAt == nil { (account.verifiedAt, account.verification) = (now, nil) }
          return (account, address)
        }
        try await throttle.succeeded(email: address.value)  // its failed logins no longer count
        return address
      },
      withdraw: { password in
        let now = now
        guard let email = session.account?.email else { throw AccountError.sessionEnded }
        // Checked before the lock; only a form sent some other way is checked here.
        let check: Result<Account, AccountError> =
          if case let .withdraw(result)? = prepared { result } else { try await checkPassword(email, password, from: client, now: now) }
        let checked = try check.get()
        try await stillCurrent()
        // The account as the password was checked against; in the user's holding, so that the
        // account goes with the save that forgets the profile, or neither does.
        let id = AccountID(email: email)
        guard let address = EmailAddress(email) else { throw AccountError.sessionEnded }
        // Every check before the first write (a refusal's writes would commit with the update).
        guard let current = try await held(id), current.record.passwordHash == checked.passwordHash else { throw AccountError.wrongPassword }
        try await throttle.forget(email: email)
        // Held since it was read: it cannot have moved.
        guard try await accounts.delete(id, at: current.version) else { throw RecordConflict(record: id.rawValue) }
        // Notices still queued for them are not sent (`MailSender.members`).
        return address
      },
      requestAddressChange: { newEmail, password, expires in
        let now = now
        guard let email = session.account?.email else { throw AccountError.sessionEnded }
        let check: Result<Account, AccountError> =
          if case let .addressChange(result)? = prepared { result } else { try await checkPassword(email, password, from: client, now: now) }
        let checked = try check.get()
        try await stillCurrent()
        guard try await accounts.read(AccountID(email: newEmail.value)) == nil else { throw AccountError.emailTaken }
        let id = AccountID(email: email)
        return try await accounts.modify(id) { account in
          guard var account, account.passwordHash == checked.passwordHash else { throw AccountError.wrongPassword }
          guard LinkLimit.allows(after: account.changesSent ?? [], at: now) else { throw AccountError.tooManyLinks }
          let (token, link) = PendingLink.issue(for: id, expires: expires)
          account.addressChange = AddressChange(to: newEmail.value, link: link)
          account.changesSent = Array(((account.changesSent ?? []) + [now]).suffix(5))
          return (account, Secret(token))
        }
      },
      confirmAddressChange: { token in
        let now = now
        // Guessing counts as logins do; a wrong link says only that.
        try await throttle.admit(client: client, now: now)
        guard let (id, secret) = PendingLink.parse(token.value) else { throw AccountError.invalidLink }
        // The old record goes and the new one comes in one commit: never both, never neither.
        return try await users.backend.holding("account-move:" + id.rawValue) {
          // Every check before the first write (a refusal's writes would commit with the update).
          guard let current = try await held(id), let change = current.record.addressChange, change.link.opens(with: secret, at: now),
            let from = EmailAddress(current.record.email), let to = EmailAddress(change.to)
          else {
            throw AccountError.invalidLink
          }
          guard try await held(AccountID(email: to.value)) == nil else { throw AccountError.emailTaken }
          let old = current.record
          var moved = Account(email: to.value, passwordHash: old.passwordHash, user: old.user, epoch: old.epoch + 1, created: old.created)
          // The link reached the new address: it is the member's.
          moved.verifiedAt = now
          try await throttle.forget(email: from.value)
          guard try await accounts.create(moved, as: moved.id), try await accounts.delete(id, at: current.version) else {
            throw RecordConflict(record: id.rawValue)
          }
          return AddressMove(from: from, to: to)
        }
      }
    )
  }
}
