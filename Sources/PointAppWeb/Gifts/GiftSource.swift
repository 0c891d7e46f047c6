import Foundation
import PointApp

/// Where exchanges get their codes, as the fulfiller calls it outside any user's lock or
/// transaction: the built-in issuer (`GiftCodeIssuer`) or a provider over HTTP (`GiftProvider`).
/// Every call is idempotent by the request's key: asked again (after a kill, from another
/// instance), it gives the answer given before. A call that throws said nothing: whether it issued
/// is unknown, and the request is asked for by `status` next, never issued blindly again.
public protocol GiftSource: Sendable {
  /// The request's code, issued now or before; `.refused` when it never will be.
  func issue(_ request: ExchangeRequest) async throws -> GiftProviderAnswer
  /// The request's order as it stands: `.none` when there is none (yet).
  func status(_ request: ExchangeRequest) async throws -> GiftProviderAnswer
  /// Makes sure the request is never issued: `.refused` (cancelled) when it had not been, its
  /// code `.issued` when it had (which the request must then deliver).
  func cancel(_ request: ExchangeRequest) async throws -> GiftProviderAnswer
}

extension GiftProvider: GiftSource {
  /// The provider's product for each option: its id.
  static func product(of option: ExchangeOption.ID) -> String { option.rawValue }

  func issue(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await issue(key: request.key, product: Self.product(of: request.option))
  }

  func status(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await status(key: request.key)
  }

  func cancel(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await cancel(key: request.key)
  }
}
