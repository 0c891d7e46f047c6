import Dependencies
import DependenciesMacros
import Foundation

/// Where exchanges get their codes. Both calls are idempotent by the request's key: asking again
/// for a request (after a crash, from another instance, from the support desk) gives the answer
/// given the first time.
@DependencyClient
public struct GiftCodeClient: Sendable {
  /// The request's code, issued now or before; `GiftCodeError.rejected` when the issuer will not
  /// issue it (then, or since `cancel`), `.unavailable` when it cannot answer now.
  public var issue: @Sendable (_ request: ExchangeRequest) async throws -> GiftCode
  /// Makes sure the request will never be issued: `nil` when it had not been (it never will),
  /// or the code issued before, which the request must then deliver.
  public var cancel: @Sendable (_ request: ExchangeRequest) async throws -> GiftCode?
}

public enum GiftCodeError: Error, Equatable, Sendable {
  /// The issuer will not issue this request's code: its points go back.
  case rejected
  /// No answer now (down, too slow): the request stays pending and is asked again.
  case unavailable
}

extension GiftCodeClient: DependencyKey {
  /// The web layer installs the issuer its store keeps; without it nothing is issued.
  public static let liveValue = GiftCodeClient(issue: { _ in throw GiftCodeError.unavailable }, cancel: { _ in throw GiftCodeError.unavailable })
  public static let testValue = GiftCodeClient()
}

extension DependencyValues {
  public var giftCodes: GiftCodeClient {
    get { self[GiftCodeClient.self] }
    set { self[GiftCodeClient.self] = newValue }
  }
}
