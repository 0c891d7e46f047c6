import Dependencies
import DependenciesMacros
import Foundation

/// The archived part of one user's ledger and exchange requests (see
/// `UserProgress.takeArchivable()`), read only by the history pages. The web layer binds it to the
/// user of each request.
@DependencyClient
public struct LedgerArchiveClient: Sendable {
  /// The archived segment that starts at movement number `start`.
  public var segment: @Sendable (_ start: Int) async throws -> LedgerSegment
  /// The archived exchange requests `start + 1 ... start + UserProgress.exchangeSegmentSize`.
  public var exchanges: @Sendable (_ start: Int) async throws -> ExchangeSegment
}

extension LedgerArchiveClient: DependencyKey {
  /// No user is known outside a request: every read fails, and the page says so.
  public static let liveValue = LedgerArchiveClient(
    segment: { _ in throw LedgerArchiveError(reason: "no user's archive is bound") },
    exchanges: { _ in throw LedgerArchiveError(reason: "no user's archive is bound") }
  )
  public static let testValue = LedgerArchiveClient()
}

extension DependencyValues {
  public var ledgerArchive: LedgerArchiveClient {
    get { self[LedgerArchiveClient.self] }
    set { self[LedgerArchiveClient.self] = newValue }
  }
}

/// The archive could not be read, or held something else than what the ledger says it holds.
public struct LedgerArchiveError: Error, Equatable, Sendable {
  public let reason: String

  public init(reason: String) { self.reason = reason }
  public init(_ error: any Error) { reason = (error as? Self)?.reason ?? String(describing: error) }
}
