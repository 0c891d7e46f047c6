import CasePaths
import Composable
import Dependencies
import Foundation

/// Exchanging points for gift cards, after a confirmation; an exchange never overdraws.
public struct Exchange: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The question asked before an exchange; not saved.
    public var confirmation: AlertState<Action>?

    public init(progress: UserProgress = UserProgress(), confirmation: AlertState<Action>? = nil) {
      self.progress = progress
      self.confirmation = confirmation
    }

    public func canAfford(_ option: ExchangeOption) -> Bool {
      progress.ledger.balance >= option.cost
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
    /// An option was chosen: asks whether to exchange it.
    case optionSelected(ExchangeOption.ID)
    /// The exchange was confirmed on a confirmation shown when the ledger held `ledgerCount`
    /// movements.
    case exchangeButtonTapped(ExchangeOption.ID, ledgerCount: Int)
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
      case let .optionSelected(id):
        guard let option = ExchangeOption(id: id) else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        state.confirmation = .exchange(option, ledgerCount: state.progress.ledger.count)
        return .none
      case let .exchangeButtonTapped(id, ledgerCount):
        state.confirmation = nil
        guard let option = ExchangeOption(id: id) else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        guard ledgerCount == state.progress.ledger.count else {
          return .send(.delegate(.exchangeRefused(.staleConfirmation)))
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

extension AlertState where Action == Exchange.Action {
  /// Asked before points are spent: what is got, what it costs, and that it is final. Its answer
  /// counts only while the ledger still holds `ledgerCount` movements.
  public static func exchange(_ option: ExchangeOption, ledgerCount: Int) -> Self {
    AlertState(
      title: "\(option.title)に交換しますか？",
      message: "\(option.cost)を使います。交換したポイントは戻せません。",
      buttons: [
        ButtonState(action: .exchangeButtonTapped(option.id, ledgerCount: ledgerCount), label: "交換する"),
        ButtonState(role: .cancel, label: "やめる"),
      ]
    )
  }
}
