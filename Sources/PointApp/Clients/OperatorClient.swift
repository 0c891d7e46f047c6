import Dependencies
import DependenciesMacros
import Foundation

/// What operators change, as their features reach it. The web layer binds it to the operator of
/// each request, and records every change in the audit log with the operator's address.
@DependencyClient
public struct OperatorClient: Sendable {
  /// Checks an operator's address and password; the address signed in to.
  public var signIn: @Sendable (_ email: String, _ password: Secret) async throws -> String
  /// Closes a survey now (its deadline becomes now); the survey as it is then.
  public var closeSurvey: @Sendable (_ id: SurveyID) async throws -> Survey
  /// A page of the audit log, newest first, from `cursor` (`nil`: the newest).
  public var auditPage: @Sendable (_ cursor: String?) async throws -> AuditPage
  /// Every survey being edited, published or not.
  public var drafts: @Sendable () async throws -> [EditorDraft]
  /// The draft of a survey, if it is being edited.
  public var draft: @Sendable (_ id: SurveyID) async throws -> EditorDraft?
  /// Keeps a draft (a new one is audited as created).
  public var saveDraft: @Sendable (_ draft: EditorDraft) async throws -> Void
  /// Publishes a survey built from its draft, as the next version of the survey of its id (the
  /// first if there is none), and ends the draft; the survey as published.
  public var publish: @Sendable (_ survey: Survey) async throws -> Survey
  /// Ends a draft without publishing it.
  public var discardDraft: @Sendable (_ id: SurveyID) async throws -> Void
  /// A survey's responses counted (its dashboard).
  public var responseCounts: @Sendable (_ id: SurveyID) async throws -> ResponseCounts
  /// Notes an export of a survey's responses in the audit log, before it is sent.
  public var exportStarted: @Sendable (_ id: SurveyID, _ export: ResponseExport) async throws -> Void
}

extension OperatorClient: TestDependencyKey {
  public static let testValue = OperatorClient()
}

extension DependencyValues {
  public var operators: OperatorClient {
    get { self[OperatorClient.self] }
    set { self[OperatorClient.self] = newValue }
  }
}

/// Why an operator's action did not happen.
public enum OperatorError: Error, Equatable, Sendable {
  case notFound
  case unavailable
}
