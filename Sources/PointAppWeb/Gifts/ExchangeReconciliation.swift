import Foundation
import PointApp

/// A day's exchanges compared with the provider's orders (`pointapp exchanges reconcile --day`):
/// our requests made that day (Japan time) and the orders the provider made that day, matched by
/// key. A key on one side only is looked up on the other, by the provider's status and by every
/// request our states hold, so that a request made at 23:59 and ordered after midnight is no
/// difference.
///
/// The requests read are those the users' states hold: each user's newest 20
/// (`UserProgress.exchangeSegmentSize`); at one request a day at most, every request of the last
/// 20 days.
public struct ExchangeReconciliation: Sendable {
  let backend: any RecordBackend
  let provider: GiftProvider

  public init(backend: any RecordBackend, provider settings: GiftProviderSettings) throws {
    self.backend = backend
    provider = try GiftProvider(settings)
  }

  init(backend: any RecordBackend, provider: GiftProvider) {
    self.backend = backend
    self.provider = provider
  }

  public struct Report: Sendable {
    /// Our requests made that day, and the provider's orders made that day.
    public var requests = 0
    public var orders = 0
    /// Each difference in a line, codes masked.
    public var differences: [String] = []
  }

  public func report(on day: Day) async throws -> Report {
    var report = Report()
    // Every request the states hold, by key (lower-case, as the provider's orders name them).
    var ours: [String: (user: UserID, request: ExchangeRequest)] = [:]
    let users = backend.table(.users)
    var after: String?
    while true {
      let names = try await users.names(after: after, limit: 500)
      for name in names {
        guard let user = UserID(name), let data = try await users.read(name)?.data else { continue }
        for request in try SavedState.state(from: data).progress.exchanges {
          ours[request.key.rawValue.uuidString.lowercased()] = (user, request)
        }
      }
      guard names.count == 500, let last = names.last else { break }
      after = last
    }
    let orders = try await provider.orders(on: day)
    report.orders = orders.count
    let ordered = Dictionary(orders.map { ($0.key.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
    let made = ours.filter { Day($0.value.request.requestedAt, in: .tokyo) == day }
    report.requests = made.count
    for (key, (user, request)) in made.sorted(by: { $0.key < $1.key }) {
      let order: GiftProviderAnswer
      if let found = ordered[key] {
        order = found.status == .issued ? found.code.map { .issued(GiftCode($0)) } ?? .none : .refused("cancelled")
      } else {
        order = try await provider.status(key: request.key)
      }
      if let difference = Self.difference(request, order) {
        report.differences.append("\(user.rawValue) request \(request.number) (key \(key)): \(difference)")
      }
    }
    for order in orders.sorted(by: { $0.key < $1.key }) where ours[order.key.lowercased()] == nil && order.status == .issued {
      report.differences.append("key \(order.key): the provider issued \(order.code.map { GiftCode($0).masked } ?? "a code") for a request no state holds")
    }
    return report
  }

  /// What is wrong between our request and the provider's order for its key (`.none`: no order).
  static func difference(_ request: ExchangeRequest, _ order: GiftProviderAnswer) -> String? {
    switch (request.status, order) {
    case let (.fulfilled(code, _), .issued(issued)) where code == issued: nil
    case let (.fulfilled(code, _), .issued(issued)): "delivered \(code.masked), the provider issued \(issued.masked)"
    case let (.fulfilled(code, _), _): "delivered \(code.masked), the provider has no issued order"
    case (.failed, .issued(let issued)): "refunded, yet the provider issued \(issued.masked)"
    case (.failed, .none): "refunded, and the provider has no order (never cancelled there)"
    case (.failed, .refused): nil
    case (.pending, .issued(let issued)): "pending: the provider issued \(issued.masked), not delivered yet"
    case (.pending, _): "pending: no order at the provider yet"
    }
  }
}
