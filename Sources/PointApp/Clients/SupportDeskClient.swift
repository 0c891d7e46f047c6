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
