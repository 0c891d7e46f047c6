import CasePaths
import Composable
import Dependencies
import Foundation

/// Exchanging points for gift cards, after a confirmation; an exchange never overdraws. Points
/// leave the site only from an account, and only with its password typed in the last 10 minutes.
public struct Exchange: Reducer, Sendable {
  /// How long a typed password lets exchanges through without asking again.
  public static let passwordGrace: TimeInterval = 10 * 60

  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The question asked before an exchange; not saved.
    public var confirmation: AlertState<Action>?
    /// The account signed in, and when its password was last typed in this session.
    public var account: EmailAddress?
    public var passwordConfirmedAt: Date?
    /// The confirmation asks for the password (not typed in the last 10 minutes).
    public var asksPassword = false

    public init(
      progress: UserProgress = UserProgress(), confirmation: AlertState<Action>? = nil,
      account: EmailAddress? = nil, passwordConfirmedAt: Date? = nil
    ) {
      self.progress = progress
      self.confirmation = confirmation
      self.account = account
      self.passwordConfirmedAt = passwordConfirmedAt
    }

    /// Whether an exchange at `now` needs the password typed again.
    public func needsPassword(at now: Date) -> Bool {
      guard let confirmed = passwordConfirmedAt else { return true }
      return now.timeIntervalSince(confirmed) >= Exchange.passwordGrace
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
    /// movements, with the password when it was asked for.
    case exchangeButtonTapped(ExchangeOption.ID, ledgerCount: Int, password: Secret? = nil)
    /// The password typed with an exchange was checked: when, if it was right.
    case passwordChecked(Result<Date, AccountError>, ExchangeOption.ID, ledgerCount: Int)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case exchanged(ExchangeOption)
      case exchangeRefused(PointError)
      /// Exchanging needs an account, or the password again.
      case signInRequired
      case passwordRefused(AccountError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.accounts) var accounts

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
        guard state.account != nil else { return .send(.delegate(.signInRequired)) }
        state.confirmation = .exchange(option, ledgerCount: state.progress.ledger.count)
        state.asksPassword = state.needsPassword(at: now)
        return .none
      case let .exchangeButtonTapped(id, ledgerCount, password):
        state.confirmation = nil
        guard ExchangeOption(id: id) != nil else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        guard state.account != nil else { return .send(.delegate(.signInRequired)) }
        guard state.needsPassword(at: now) else { return exchange(id, ledgerCount: ledgerCount, &state) }
        guard let password, !password.value.isEmpty else { return .send(.delegate(.passwordRefused(.passwordRequired))) }
        return .run { send in
          do {
            await send(.passwordChecked(.success(try await accounts.confirmPassword(password.value)), id, ledgerCount: ledgerCount))
          } catch {
            await send(.passwordChecked(.failure(AccountError(error)), id, ledgerCount: ledgerCount))
          }
        }
      case let .passwordChecked(.success(date), id, ledgerCount):
        state.passwordConfirmedAt = date
        return exchange(id, ledgerCount: ledgerCount, &state)
      case let .passwordChecked(.failure(error), _, _):
        return .send(.delegate(.passwordRefused(error)))
      case .delegate:
        return .none
      }
    }
  }

  private func exchange(_ id: ExchangeOption.ID, ledgerCount: Int, _ state: inout State) -> Effect<Action> {
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
