import Dependencies
import Foundation
import PointApp

/// What operators change, behind `OperatorClient`: bound to one request's session, it signs in
/// (the users' bcrypt and login limits, counted apart from theirs), closes surveys in the catalog,
/// and writes every action to the audit log with who, when, before and after.
struct OperatorService: Sendable {
  let operators: OperatorRecords
  let hasher: PasswordHasher
  let throttle: any LoginThrottle
  let catalog: CatalogStore
  let audit: AuditLog
  let responses: ResponseStore

  /// `client` is the address the form comes from, for the per-client limit (`nil`: unknown).
  func client(for session: OperatorSession, from client: String?) -> OperatorClient {
    @Dependency(\.date.now) var now

    return OperatorClient(
      signIn: { email, password in
        let now = now
        guard let address = EmailAddress(email) else { throw AccountError.wrongCredentials }
        // An operator's failures are counted apart from a user's of the same address, and a
        // client address's attempts apart from its members': a busy shared address never locks
        // its operators out.
        let key = "operator \(address.value)"
        try await throttle.admit(email: key, client: client.map { "operator \($0)" }, now: now)
        let found = try await operators.read(OperatorID(email: address.value))?.record
        guard try await hasher.verify(password.value, against: found?.passwordHash), let found else {
          // Under the address typed, whether an operator has it or not.
          try await audit.append(AuditEntry(at: now, operatorEmail: address.value, action: .signInFailed))
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
      exportStarted: { id, export in
        guard let email = session.email else { throw OperatorError.notFound }
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .responsesExported, subject: id.rawValue, after: export.summary))
      }
    )
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
public func createOperator(
  email: String, password: String, operators storage: any RecordStorage, audit: any RecordStorage,
  hasher: PasswordHasher = PasswordHasher(), now: Date = Date()
) async throws {
  guard let address = EmailAddress(email) else { throw OperatorCreationRefused(description: "not an email address: \(email)") }
  if let problem = PasswordPolicy.problem(with: password) { throw OperatorCreationRefused(description: problem.message) }
  let made = Operator(email: address.value, passwordHash: try await hasher.hash(password), created: now)
  guard try await OperatorRecords(storage).create(made, as: made.id) else {
    throw OperatorCreationRefused(description: "an operator of \(address.value) exists already")
  }
  try await AuditLog(audit).append(AuditEntry(at: now, operatorEmail: address.value, action: .operatorCreated))
}
