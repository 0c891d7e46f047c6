import CasePaths
import Composable
import Dependencies
import Foundation

/// `/admin/operators`, for 管理者: every operator with their role, last sign-in and whether a
/// second factor is enrolled; adding one (an initial password shown once), changing a role,
/// disabling, resetting a second factor. Each change is the service's to audit. Scoped into
/// `OperatorFeature`, which maps where it leads to a destination.
public struct OperatorTeam: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var members: [OperatorSummary] = []
    /// What the form before did, shown on the page after it.
    public var outcome: Outcome?

    public init() {}
  }

  public enum Outcome: Equatable, Sendable {
    case done(TeamNotice)
    case refused(TeamError)
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested(outcome: Outcome?)
    case membersLoaded(Result<[OperatorSummary], OperatorError>)
    case changeSubmitted(TeamChange)
    case changeFinished(Outcome)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case page(Outcome?)
      case failed(OperatorError)
    }
  }

  @Dependency(\.operators) var operators

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .pageRequested(outcome):
        state.outcome = outcome
        return .run { send in
          do {
            await send(.membersLoaded(.success(try await operators.team())))
          } catch {
            await send(.membersLoaded(.failure(error as? OperatorError ?? .unavailable)))
          }
        }
      case let .membersLoaded(.success(members)):
        state.members = members.sorted { ($0.disabled ? 1 : 0, $0.email) < ($1.disabled ? 1 : 0, $1.email) }
        return .send(.delegate(.page(state.outcome)))
      case let .membersLoaded(.failure(error)):
        return .send(.delegate(.failed(error)))
      case let .changeSubmitted(change):
        return .run { send in
          do {
            try await operators.changeTeam(change)
            let notice: TeamNotice =
              switch change {
              case .add: .added
              case .changeRole: .roleChanged
              case .disable: .disabled
              case .resetSecondFactor: .secondFactorReset
              }
            await send(.changeFinished(.done(notice)))
          } catch let refusal as TeamError {
            await send(.changeFinished(.refused(refusal)))
          } catch {
            await send(.delegate(.failed(error as? OperatorError ?? .unavailable)))
          }
        }
      case let .changeFinished(outcome):
        state.outcome = outcome
        return .send(.delegate(.page(outcome)))
      case .delegate:
        return .none
      }
    }
  }
}
