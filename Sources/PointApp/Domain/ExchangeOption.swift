/// Something points can be exchanged for.
public struct ExchangeOption: Equatable, Identifiable, Sendable {
  public typealias ID = Identifier<ExchangeOption, String>

  public let id: ID
  public let title: String
  public let cost: PointAmount

  /// What can be had, cheapest first.
  public static let all: [ExchangeOption] = [
    ExchangeOption(id: ID("digital-gift-300"), title: "デジタルギフト 300円分", cost: 3_000),
    ExchangeOption(id: ID("e-money-500"), title: "電子マネー 500円分", cost: 5_000),
    ExchangeOption(id: ID("gift-card-1000"), title: "ギフトカード 1,000円分", cost: 10_000),
  ]
}

extension ExchangeOption {
  /// The option with `id`, if there is one.
  public init?(id: ID) {
    guard let option = Self.all.first(where: { $0.id == id }) else { return nil }
    self = option
  }
}
