import Foundation
import PointApp
import Synchronization

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
  /// What can be offered now: the options whose product cannot be delivered, and whether the
  /// codes are for testing only.
  func offer() async throws -> GiftOffer
}

extension GiftProvider: GiftSource {
  func issue(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    // An option no longer offered (a request made by an older release) is refused by the
    // provider as an unknown product, and refunded.
    try await issue(key: request.key, product: ExchangeOption(id: request.option)?.product ?? request.option.rawValue)
  }

  func status(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await status(key: request.key)
  }

  func cancel(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
    try await cancel(key: request.key)
  }

  /// The options whose product the provider does not list as available (unknown to it, or not
  /// deliverable now).
  func offer() async throws -> GiftOffer {
    let products = try await products()
    return GiftOffer(unavailable: Set(ExchangeOption.all.filter { products[$0.product] != true }.map(\.id)))
  }
}

/// What the source delivers, as last read: every request reads it, a task reads the source again
/// every minute, and a source that does not answer leaves the last reading standing. Until the
/// first, everything is offered (a request for what cannot be delivered is refused by the source
/// and refunded).
final class GiftOffers: Sendable {
  private let source: any GiftSource
  private let offer = Mutex(GiftOffer())

  init(_ source: any GiftSource) {
    self.source = source
  }

  var client: GiftOfferClient {
    GiftOfferClient { [self] in offer.withLock { $0 } }
  }

  func refresh() async throws {
    let now = try await source.offer()
    offer.withLock { $0 = now }
  }
}
