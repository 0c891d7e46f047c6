import Dependencies
import Foundation
import PointApp

/// The support desk behind `SupportDeskClient`, bound to one operator's session: users found by
/// an account's address or their id, read whole, and changed through their own update
/// (`RequestLoop.send`, `AppFeature`'s `.support`), each change in the audit log with who, when,
/// before and after, written before the change is saved.
struct SupportDeskService: Sendable {
  let users: UserStates
  let accounts: AccountRecords
  let audit: AuditLog
  let loop: RequestLoop
  let adjustments: AdjustmentStore
  /// Messages refused for good, for the desk's first page.
  let mail: MailQueue

  func client(for session: OperatorSession) -> SupportDeskClient {
    @Dependency(\.date.now) var now

    return SupportDeskClient(
      find: { query in
        guard session.email != nil else { throw OperatorError.notFound }
        if let user = UserID(query.lowercased()) {
          return try await users.read(user) == nil ? nil : user.rawValue
        }
        guard let email = EmailAddress(query) else { return nil }
        return try await accounts.read(AccountID(email: email.value))?.record.user.rawValue
      },
      dossier: { id in
        guard let email = session.email else { throw OperatorError.notFound }
        let dossier = try await dossier(of: id)
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .userViewed, subject: id))
        return dossier
      },
      perform: { id, action in
        guard let email = session.email, let user = UserID(id) else { throw OperatorError.notFound }
        let at = now
        var asked = action
        if case let .approveAnswer(survey, nil) = action, survey.cells != nil {
          // The quota cell its response took (as recorded then), whose place the approval takes.
          let response = try await loop.responses.responses(by: [survey.id: loop.sessions.respondent(user, in: survey.id)])[survey.id]
          asked = .approveAnswer(survey, cell: response?.cell)
        }
        let action = asked
        let after = try await loop.send(.support(action), to: user) { before, after in
          guard after.supportRefusal == nil else { return }
          try await audit.append(Self.entry(action, of: id, from: before.progress, to: after.progress, by: email, at: at))
        }
        guard let after else { throw OperatorError.notFound }
        if let refusal = after.supportRefusal { throw refusal }
        return try await dossier(of: id)
      },
      confirmInvalid: { id, survey in
        guard let email = session.email else { throw OperatorError.notFound }
        let progress = try await dossier(of: id).progress
        guard progress.answered[survey]?.outcome == .invalid else { throw SupportError.notInvalid }
        try await audit.append(AuditEntry(at: now, operatorEmail: email, action: .answerConfirmed, subject: id, after: survey.rawValue))
      },
      openAdjustment: { request, policy in
        guard let email = session.email, request.requestedBy == email, UserID(request.user) != nil else { throw OperatorError.notFound }
        let now = now
        // Kept first: a form sent again is refused there, and leaves no entry. (The points move
        // later, each with an entry of its own.)
        let alone = try await adjustments.open(request, on: Day(now, in: .tokyo), policy: policy)
        try await audit.append(AuditEntry(
          at: now, operatorEmail: email, action: .adjustmentRequested, subject: request.user,
          after: Self.summary(request) + (alone ? "" : "（承認待ち）")
        ))
        return alone
      },
      adjustment: { id in try await adjustments.request(id) },
      waitingAdjustments: { try await adjustments.open() },
      decideAdjustment: { id, status in
        guard let email = session.email else { throw OperatorError.notFound }
        let now = now
        // The entry first, for a decision of a second operator (the steps of one that needed
        // none are the request's and the adjustment's own entries).
        let request = try await adjustments.request(id)
        let decision: AuditEntry.Action? =
          switch status {
          case let .approved(by, _) where by != request.requestedBy: .adjustmentApproved
          case .refused: .adjustmentRefused
          default: nil
          }
        if let decision {
          try await audit.append(AuditEntry(
            at: now, operatorEmail: email, action: decision, subject: request.user, before: "依頼 \(request.requestedBy)", after: Self.summary(request)
          ))
        }
        _ = try await adjustments.move(id, to: status)
      },
      undeliveredMail: {
        try await mail.refusals().map {
          UndeliveredMail(user: $0.user?.rawValue, kind: $0.kind, subject: $0.subject, ended: $0.ended, attempts: $0.attempts, reply: $0.reply ?? "")
        }
      },
      waitingExchanges: {
        try await loop.exchanges.all().prefix(50).map {
          WaitingExchange(
            user: $0.entry.user.rawValue, number: $0.entry.number, since: $0.waiting.since, attempts: $0.waiting.attempts ?? 0,
            answerUnknown: $0.waiting.unknown == true
          )
        }
      }
    )
  }

  /// An adjustment as the audit log shows it.
  static func summary(_ request: AdjustmentRequest) -> String {
    "\(request.points > 0 ? "+" : "")\(PointAmount.grouped(request.points))pt：\(request.reason)"
  }

  private func dossier(of id: String) async throws -> Dossier {
    guard let user = UserID(id), let data = try await users.read(user) else { throw OperatorError.notFound }
    let progress = try SavedState.state(from: data).progress
    let titles = ((try? await loop.catalog.fetchAll()) ?? []).map { ($0.id, $0.title) }
    let responses = try await loop.responses.responses(
      by: Dictionary(uniqueKeysWithValues: progress.answered.keys.map { ($0, loop.sessions.respondent(user, in: $0)) })
    )
    return Dossier(
      user: id, progress: progress, responses: responses, surveyTitles: Dictionary(titles, uniquingKeysWith: { first, _ in first })
    )
  }

  /// The audit entry of a change: the balance before and after, and what changed.
  static func entry(
    _ action: SupportAction, of user: String, from before: UserProgress, to after: UserProgress, by email: String, at date: Date
  ) -> AuditEntry {
    let balances = (before: "残高 \(before.ledger.balance)", after: "残高 \(after.ledger.balance)")
    switch action {
    case let .adjust(points, reason, _):
      return AuditEntry(
        at: date, operatorEmail: email, action: .pointsAdjusted, subject: user, before: balances.before,
        after: "\(balances.after)（\(points > 0 ? "+" : "")\(PointAmount.grouped(points))pt：\(reason)）"
      )
    case let .approveAnswer(survey, _):
      return AuditEntry(at: date, operatorEmail: email, action: .answerApproved, subject: user, before: balances.before, after: "\(balances.after)（\(survey.id.rawValue)）")
    case let .retryExchange(number), let .refundExchange(number):
      let status = { (progress: UserProgress) in progress.exchangeRequest(number).map { "申請番号\(number) \(Self.status($0))" } ?? "" }
      return AuditEntry(
        at: date, operatorEmail: email, action: { if case .retryExchange = action { .exchangeRetried } else { .exchangeEnded } }(),
        subject: user, before: "\(status(before))・\(balances.before)", after: "\(status(after))・\(balances.after)"
      )
    }
  }

  static func status(_ request: ExchangeRequest) -> String {
    switch request.status {
    case .pending: "申請中"
    case .fulfilled: "交換完了"
    case .failed: "失敗（返還済み）"
    }
  }
}
