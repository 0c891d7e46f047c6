import Dependencies
import DependenciesMacros
import Foundation

/// The support desk's reach into users, for an operator: the web layer binds it to the operator
/// of each request, and writes every change (and every look at a user) to the audit log.
@DependencyClient
public struct SupportDeskClient: Sendable {
  /// The user an address (an account's) or a user id names; `nil`: none.
  public var find: @Sendable (_ query: String) async throws -> String?
  /// Everything kept of a user; `OperatorError.notFound` for no such user.
  public var dossier: @Sendable (_ user: String) async throws -> Dossier
  /// Changes a user as `action` says, in the user's own update; the user as they are then. Throws
  /// `SupportError` when refused (nothing changed).
  public var perform: @Sendable (_ user: String, _ action: SupportAction) async throws -> Dossier
  /// Confirms an answer recorded invalid: it stays unpaid, and the audit log says who decided.
  public var confirmInvalid: @Sendable (_ user: String, _ survey: SurveyID) async throws -> Void
  /// Keeps an adjustment asked (waiting) under its form's id and, when `policy` lets its operator
  /// make it alone (its size, and what they adjusted alone today with it), counts it in their
  /// day; whether it did (then it is theirs to apply; otherwise it waits for a second operator).
  /// Counted atomically: two at once never both pass the day's limit. `SupportError.alreadyDone`
  /// when the form's id was sent before.
  public var openAdjustment: @Sendable (_ request: AdjustmentRequest, _ policy: AdjustmentPolicy) async throws -> Bool
  /// An adjustment asked, by its id; `SupportError.notWaiting` for none.
  public var adjustment: @Sendable (_ id: TransactionID) async throws -> AdjustmentRequest
  /// The adjustments that wait for a second operator, oldest first.
  public var waitingAdjustments: @Sendable () async throws -> [AdjustmentRequest]
  /// Moves an adjustment on to `status`, from waiting (or from approved, to an end), audited;
  /// `SupportError.notWaiting` when another decision came first.
  public var decideAdjustment: @Sendable (_ id: TransactionID, _ status: AdjustmentRequest.Status) async throws -> Void
  /// The newest messages that never reached their member, newest first.
  public var undeliveredMail: @Sendable () async throws -> [UndeliveredMail]
  /// The exchange requests waiting for their code, the oldest first (at most 50).
  public var waitingExchanges: @Sendable () async throws -> [WaitingExchange]
}

extension SupportDeskClient: TestDependencyKey {
  public static let testValue = SupportDeskClient()
}

extension DependencyValues {
  public var supportDesk: SupportDeskClient {
    get { self[SupportDeskClient.self] }
    set { self[SupportDeskClient.self] = newValue }
  }
}
