import Dependencies
import DependenciesMacros
import Foundation

/// Surveys' quotas as the features reach them: the places of all users, shared. The web layer
/// binds it to the user of each request; a place taken there is kept only if that request's
/// answer is saved.
@DependencyClient
public struct QuotaClient: Sendable {
  /// Takes one of the survey's `places` (`nil`: no overall limit) for the request's user, and one
  /// of its `cell`'s when it has cells: both or neither, `false` when either is full. A user who
  /// holds one already keeps it (`true`).
  public var claim: @Sendable (_ survey: SurveyID, _ places: Int?, _ cell: QuotaCells.Cell?) async throws -> Bool
}

/// A quota could not be counted: the answer waits, nothing is paid.
public struct QuotaError: Error, Equatable, Sendable {
  public let reason: String

  public init(_ error: any Error) { reason = String(describing: error) }
  public init(reason: String) { self.reason = reason }
}

extension QuotaClient: DependencyKey {
  /// No user is known outside a request: no place can be taken.
  public static let liveValue = QuotaClient(claim: { _, _, _ in throw QuotaError(reason: "no request's user to claim for") })
  public static let testValue = QuotaClient()
}

extension DependencyValues {
  public var quotas: QuotaClient {
    get { self[QuotaClient.self] }
    set { self[QuotaClient.self] = newValue }
  }
}
