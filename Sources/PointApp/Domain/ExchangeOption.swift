/// Something points can be exchanged for: what it costs, the fee on top, and what arrives.
public struct ExchangeOption: Equatable, Identifiable, Sendable {
  public typealias ID = Identifier<ExchangeOption, String>

  public let id: ID
  public let title: String
  /// The points exchanged: what arrives is worth this (10 pt = 1 円).
  public let cost: PointAmount
  /// Points charged on top of `cost` (a bank transfer's); gift codes have none.
  public let fee: PointAmount
  /// What the user receives, as the confirmation says it.
  public let delivers: String
  /// The gift provider's product that delivers it (`Deploy/gift-provider-api.yaml`): what an
  /// order asks for, and what the provider's list of products says is available.
  public let product: String

  public init(id: ID, title: String, cost: PointAmount, fee: PointAmount = .zero, delivers: String, product: String) {
    self.id = id
    self.title = title
    self.cost = cost
    self.fee = fee
    self.delivers = delivers
    self.product = product
  }

  /// The points an exchange takes: its cost and its fee. The balance must reach it: it is the
  /// option's minimum.
  public var total: PointAmount { cost.adding(fee) }

  /// What can be had, cheapest first. A bank transfer is paid out by the provider too: its
  /// product is a claim code, redeemed on the provider's site with the member's account number
  /// (which the site therefore never keeps).
  public static let all: [ExchangeOption] = [
    ExchangeOption(
      id: ID("digital-gift-300"), title: "デジタルギフト 300円分", cost: 3_000, delivers: "デジタルギフトのコード（300円分）", product: "gift-300"
    ),
    ExchangeOption(
      id: ID("e-money-500"), title: "電子マネー 500円分", cost: 5_000, delivers: "電子マネーのチャージコード（500円分）", product: "emoney-500"
    ),
    ExchangeOption(
      id: ID("gift-card-1000"), title: "ギフトカード 1,000円分", cost: 10_000, delivers: "ギフトカードのコード（1,000円分）", product: "giftcard-1000"
    ),
    ExchangeOption(
      id: ID("bank-transfer-1000"), title: "銀行振込 1,000円", cost: 10_000, fee: 1_000,
      delivers: "振込の受取コード（提携先で口座を指定すると 1,000円が振り込まれます）", product: "payout-1000"
    ),
  ]
}

extension ExchangeOption {
  /// The option with `id`, if there is one.
  public init?(id: ID) {
    guard let option = Self.all.first(where: { $0.id == id }) else { return nil }
    self = option
  }
}

/// How much can be exchanged: at most one request a day and `monthlyPoints` a month (JST), each
/// counted from the requests not refunded.
public enum ExchangeLimits {
  public static let perDay = 1
  public static let monthlyPoints: PointAmount = 30_000
}
