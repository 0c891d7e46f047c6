import Crypto
import Dependencies
import Foundation
import PointApp

/// What operators change, behind `OperatorClient`: bound to one request's session, it signs in
/// (the users' bcrypt and login limits, counted apart from theirs), closes surveys in the catalog,
/// and writes every action to the audit log with who, when, before and after.
struct OperatorService: Sendable {
  let sessions: OperatorSessions
  let hasher: PasswordHasher
  let throttle: LoginThrottle
  let catalog: CatalogStore
  let audit: AuditLog
  let responses: ResponseStore
  /// Where a survey's first publication starts its invitations.
  let notices: NoticeRuns

  /// `client` is the address the form comes from, for the per-client limit (`nil`: unknown).
  var operators: OperatorRecords { sessions.operators }

  func client(for session: OperatorSession, from client: String?) -> OperatorClient {
    @Dependency(\.date.now) var now
    let client = client.map { "operator \($0)" }

    return OperatorClient(
      signIn: { email, password in
        let now = now
        guard let address = EmailAddress(email) else { throw AccountError.wrongCredentials }
        // An operator's failures are counted apart from a user's of the same address, and a
        // client address's attempts apart from its members': a busy shared address never locks
        // its operators out.
        let key = "operator \(address.value)"
        try await throttle.admit(email: key, client: client, now: now)
        let found = try await operators.read(OperatorID(email: address.value))?.record
        guard try await hasher.verify(password.value, against: found?.passwordHash), let found, !found.disabled else {
          // Under the address typed, whether an operator has it or not.
          try await audit.append(AuditEntry(at: now, operatorEmail: address.value, action: .signInFailed, after: "パスワード"))
          throw AccountError.wrongCredentials
        }
        try await throttle.succeeded(email: key)
        try await audit.append(AuditEntry(at: now, operatorEmail: found.email, action: .signedIn))
        return found.email
      },
      closeSurvey: { id in
        guard let email = session.email else { throw OperatorError.notFound }
        let now = now
        // The entry first: no change to the catalog exists without one.
        try await catalog.refresh()
        guard let current = catalog.surveys.first(where: { $0.id == id }) else { throw OperatorError.notFound }
        try await audit.append(AuditEntry(
          at: now, operatorEmail: email, action: .surveyClosed, subject: id.rawValue,
          before: Self.deadline(current), after: Self.deadline(current.closed(at: now))
        ))
        return try await catalog.modify { surveys -> Survey in
          guard let index = surveys.firstIndex(where: { $0.id == id }) else { throw OperatorError.notFound }
          surveys[index] = surveys[index].closed(at: now)
          return surveys[index]
        }
      },
      auditPage: { cursor in try await audit.page(after: cursor) },
      drafts: { try await catalog.allDrafts() },
      draft: { id in try await catalog.draft(id) },
      saveDraft: { draft in
        guard let email = session.email else { throw OperatorError.notFound }
        if try await catalog.save(draft) {
          try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .draftCreated, subject: draft.id.rawValue, after: draft.form.title.isEmpty ? "（無題）" : draft.form.title))
        }
      },
      publish: { survey in
        guard let email = session.email else { throw OperatorError.notFound }
        // The entry first, with the version it will be (another publication at once would make
        // it the next one).
        try await catalog.refresh()
        let current = catalog.surveys.first { $0.id == survey.id }
        try await audit.append(AuditEntry(
          at: now, operatorEmail: email, action: .surveyPublished, subject: survey.id.rawValue,
          before: current.map(Self.summary), after: Self.summary(survey.numbered((current?.version ?? 0) + 1))
        ))
        // Its members are invited once, when it is first published (`NoticeSender`): the pass
        // starts first and waits for the survey in the catalog, so that a crash between the two
        // never leaves a survey published without its invitations.
        if current == nil { try await notices.start(NoticeSender.invitations(for: survey.id), at: now) }
        let (published, _) = try await catalog.publish(survey)
        try await catalog.discardDraft(survey.id)
        return published
      },
      discardDraft: { id in
        guard let email = session.email else { throw OperatorError.notFound }
        // Discarding what was never saved (a published survey's form) leaves nothing to discard.
        guard let kept = try await catalog.discardDraft(id) else { return }
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .draftDiscarded, subject: id.rawValue, before: kept.form.title))
      },
      responseCounts: { id in try await responses.counts(of: id) },
      invitations: { id in try await notices.progress(of: NoticeSender.invitations(for: id)) },
      exportStarted: { id, export in
        guard let email = session.email else { throw OperatorError.notFound }
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .responsesExported, subject: id.rawValue, after: export.summary))
      },
      startEnrolment: {
        guard let email = session.email, !session.enrolled else { throw OperatorError.notFound }
        // Kept with the session: the page shown again shows the same secret.
        let secret: String = try await sessions.sessions.store.modify(session.id) { record in
          guard var record, record.operator != nil else { throw OperatorError.notFound }
          if let pending = record.pendingSecret { return (nil, pending) }
          let new = Base32.encode(TOTP.newSecret())
          record.pendingSecret = new
          return (record, new)
        }
        return Enrolment(secret: secret, uri: TOTP.uri(secret: Base32.decode(secret) ?? Data(), account: email))
      },
      confirmEnrolment: { code in
        guard let email = session.email, !session.enrolled else { throw OperatorError.notFound }
        let now = now
        let key = "operator-code \(email)"
        // Counted for the operator only: the password before it was counted for the client.
        try await throttle.admit(email: key, client: nil, now: now)
        guard let pending = try await sessions.sessions.store.read(session.id)?.record.pendingSecret, let secret = Base32.decode(pending),
          let step = TOTP(secret: secret).acceptedStep(code, at: now, after: nil)
        else {
          try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .signInFailed, after: "認証アプリの登録コード"))
          throw AccountError.wrongCredentials
        }
        try await throttle.succeeded(email: key)
        let codes = (0..<10).map { _ in Self.newRecoveryCode() }
        // The entry first: no enrolment exists without one.
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .secondFactorEnrolled, subject: email, after: "リカバリーコード10個"))
        try await operators.modify(OperatorID(email: email)) { found in
          guard var found, found.totp == nil else { throw AccountError.sessionEnded }
          found.totp = TOTPEnrolment(secret: pending, lastStep: step, enrolled: now)
          found.recoveryCodes = codes.map(Self.recoveryHash)
          found.lastSignIn = now
          return (found, ())
        }
        try await sessions.update(session) { record in
          record.pendingSecret = nil
          record.secondFactorAt = now
          record.revealed = .recoveryCodes(codes.map { Secret($0) })
        }
      },
      verifySecondFactor: { code in
        guard let email = session.email, session.enrolled else { throw OperatorError.notFound }
        let now = now
        let key = "operator-code \(email)"
        // Counted for the operator only: the password before it was counted for the client.
        try await throttle.admit(email: key, client: nil, now: now)
        // Over the operator as it is: of two requests with one code, one takes it.
        let used: String? = try await operators.modify(OperatorID(email: email)) { found in
          guard var found, !found.disabled, let totp = found.totp, let secret = Base32.decode(totp.secret) else { throw AccountError.sessionEnded }
          found.lastSignIn = now
          if let step = TOTP(secret: secret).acceptedStep(code, at: now, after: totp.lastStep) {
            found.totp?.lastStep = step
            return (found, "認証アプリ")
          }
          if let index = found.recoveryCodes.firstIndex(of: Self.recoveryHash(code)) {
            found.recoveryCodes.remove(at: index)
            return (found, "リカバリーコード（残り\(found.recoveryCodes.count)個）")
          }
          return (nil, nil)
        }
        guard let used else {
          try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .signInFailed, after: "確認コード"))
          throw AccountError.wrongCredentials
        }
        try await throttle.succeeded(email: key)
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .secondFactorGiven, after: used))
        try await sessions.update(session) { $0.secondFactorAt = now }
      },
      team: {
        guard session.role == .administrator else { throw OperatorError.notFound }
        return try await allOperators().map { found in
          OperatorSummary(
            id: found.id.rawValue, email: found.email, role: found.role, disabled: found.disabled, lastSignIn: found.lastSignIn,
            enrolled: found.totp != nil
          )
        }
      },
      changeTeam: { change in
        guard let email = session.email, session.role == .administrator else { throw OperatorError.notFound }
        try await changeTeam(change, by: email, in: session, at: now)
      }
    )
  }

  /// Every operator, in the order of their ids (the table holds operators only).
  private func allOperators() async throws -> [Operator] {
    try await operators.all(prefixed: "")
  }

  private func changeTeam(_ change: TeamChange, by email: String, in session: OperatorSession, at now: Date) async throws {
    switch change {
    case let .add(typed, role):
      guard let address = EmailAddress(typed) else { throw TeamError.invalidEmail }
      guard try await operators.read(OperatorID(email: address.value)) == nil else { throw TeamError.exists }
      let password = Self.newPassword()
      let made = Operator(email: address.value, passwordHash: try await hasher.hash(password), created: now, role: role)
      try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .operatorAdded, subject: address.value, after: role.title))
      guard try await operators.create(made, as: made.id) else { throw TeamError.exists }
      try await sessions.update(session) { $0.revealed = .initialPassword(email: address.value, password: Secret(password)) }
    case let .changeRole(id, role):
      let target = try await member(id)
      guard target.role != role else { return }
      if target.role == .administrator, !target.disabled { try await requireAnotherAdministrator(than: target) }
      try await audit.append(AuditEntry(
        at: now, operatorEmail: email, action: .roleChanged, subject: target.email, before: target.role.title, after: role.title
      ))
      try await operators.modify(target.id) { found in
        guard var found else { throw TeamError.unknown }
        found.role = role
        return (found, ())
      }
    case let .disable(id):
      let target = try await member(id)
      guard target.email != email else { throw TeamError.yourself }
      guard !target.disabled else { return }
      if target.role == .administrator { try await requireAnotherAdministrator(than: target) }
      try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .operatorDisabled, subject: target.email))
      try await operators.modify(target.id) { found in
        guard var found else { throw TeamError.unknown }
        found.disabled = true
        found.epoch += 1  // every session of theirs ends now
        return (found, ())
      }
    case let .resetSecondFactor(id):
      let target = try await member(id)
      try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .secondFactorReset, subject: target.email))
      try await operators.modify(target.id) { found in
        guard var found else { throw TeamError.unknown }
        found.totp = nil
        found.recoveryCodes = []
        found.epoch += 1  // signed out everywhere: they enrol anew at their next sign-in
        return (found, ())
      }
    }
  }

  private func member(_ id: String) async throws -> Operator {
    guard let id = OperatorID(id), let found = try await operators.read(id)?.record else { throw TeamError.unknown }
    return found
  }

  /// Refuses a change that would leave no 管理者 who can sign in.
  private func requireAnotherAdministrator(than target: Operator) async throws {
    let others = try await allOperators().filter { $0.role == .administrator && !$0.disabled && $0.id != target.id }
    guard !others.isEmpty else { throw TeamError.lastAdministrator }
  }

  /// A recovery code: ten characters of a 32-letter alphabet without look-alikes (50 bits), shown
  /// as two groups of five.
  static func newRecoveryCode() -> String {
    let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
    let characters = (0..<10).map { _ in alphabet.randomElement()! }
    return String(characters.prefix(5)) + "-" + String(characters.dropFirst(5))
  }

  /// What is kept of a recovery code: the SHA-256 of its letters, however it was typed.
  static func recoveryHash(_ code: String) -> String {
    let letters = code.lowercased().filter { $0.isLetter || $0.isNumber }
    return hex(SHA256.hash(data: Data(letters.utf8)))
  }

  /// A new operator's first password: 16 characters of letters and digits (about 95 bits).
  static func newPassword() -> String {
    let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789")
    return String((0..<16).map { _ in alphabet.randomElement()! })
  }

  /// A published version as the audit log shows it.
  static func summary(_ survey: Survey) -> String {
    "第\(survey.version)版「\(survey.title)」\(survey.reward)・\(survey.questions.count)問・公開 \(Pages.date(survey.publishedAt))・\(deadline(survey))"
      + (survey.quota.map { "・回収目標 \($0.target)" } ?? "")
  }

  func signedOut(_ session: OperatorSession, at now: Date) async throws {
    guard let email = session.email else { return }
    try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .signedOut))
  }

  static func deadline(_ survey: Survey) -> String {
    survey.expiresAt.map { "締切 \(Pages.date($0))" } ?? "締切なし"
  }
}

/// Why `pointapp create-operator` made no operator.
public struct OperatorCreationRefused: Error, CustomStringConvertible {
  public let description: String
}

/// `pointapp create-operator`: makes an operator of `email` with `password` (the users' rules:
/// 8 to 128 characters, not a common one) in `storage`, and writes it to the audit log.
/// `role`: the first operator of a store is a 管理者 (the default then); after that a role is
/// named.
public func createOperator(
  email: String, password: String, role: OperatorRole? = nil, operators storage: any RecordStorage, audit: any RecordStorage,
  hasher: PasswordHasher = PasswordHasher(), now: Date = Date()
) async throws {
  guard let address = EmailAddress(email) else { throw OperatorCreationRefused(description: "not an email address: \(email)") }
  if let problem = PasswordPolicy.problem(with: password) { throw OperatorCreationRefused(description: problem.message) }
  let first = try await storage.names(after: nil, limit: 1).isEmpty
  guard let role = role ?? (first ? .administrator : nil) else {
    throw OperatorCreationRefused(description: "--role is needed: administrator, editor, support or analyst")
  }
  guard !first || role == .administrator else {
    throw OperatorCreationRefused(description: "the first operator of a store is an administrator (管理者): it manages the others")
  }
  let made = Operator(email: address.value, passwordHash: try await hasher.hash(password), created: now, role: role)
  guard try await OperatorRecords(storage).create(made, as: made.id) else {
    throw OperatorCreationRefused(description: "an operator of \(address.value) exists already")
  }
  try await AuditLog(audit).append(AuditEntry(at: now, operatorEmail: address.value, action: .operatorCreated, after: role.title))
}
