import CasePaths
import Composable
import Dependencies
import Foundation

/// Exchanging points for gift cards; an exchange never overdraws.
public struct Exchange: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress

    public init(progress: UserProgress = UserProgress()) { self.progress = progress }

    public func canAfford(_ option: ExchangeOption) -> Bool {
      progress.ledger.balance >= option.cost
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
    case exchangeButtonTapped(ExchangeOption.ID)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case exchanged(ExchangeOption)
      case exchangeRefused(PointError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .pageRequested:
        return .none
      case let .exchangeButtonTapped(id):
        guard let option = ExchangeOption.all.first(where: { $0.id == id }) else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        do throws(PointError) {
          try state.progress.exchange(option, id: TransactionID(uuid()), at: now)
          return .send(.delegate(.exchanged(option)))
        } catch {
          return .send(.delegate(.exchangeRefused(error)))
        }
      case .delegate:
        return .none
      }
    }
  }
}
