import Dependencies

/// What the source of codes delivers now, as the exchange pages and the exchange itself read it.
public struct GiftOffer: Equatable, Sendable {
  /// Options whose product the provider says it cannot deliver now: not offered, not requested.
  public var unavailable: Set<ExchangeOption.ID>
  /// The codes come from the built-in issuer: they work nowhere, and the pages say so.
  public var testCodes: Bool

  public init(unavailable: Set<ExchangeOption.ID> = [], testCodes: Bool = false) {
    self.unavailable = unavailable
    self.testCodes = testCodes
  }
}

/// The offer as it stands, kept by the web layer from the provider's list of products.
public struct GiftOfferClient: Sendable {
  public var current: @Sendable () -> GiftOffer

  public init(current: @escaping @Sendable () -> GiftOffer) {
    self.current = current
  }
}

extension GiftOfferClient: DependencyKey {
  /// Every option, real codes: the web layer sets the offer of its source.
  public static let liveValue = GiftOfferClient { GiftOffer() }
  public static let testValue = GiftOfferClient { GiftOffer() }
}

extension DependencyValues {
  public var giftOffer: GiftOfferClient {
    get { self[GiftOfferClient.self] }
    set { self[GiftOfferClient.self] = newValue }
  }
}
