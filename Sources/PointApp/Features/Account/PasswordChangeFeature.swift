import CasePaths
import Composable
import Dependencies
import Foundation

/// Changing the account's password, which needs the current one. Every other session of the
/// account ends with it: whoever knew the old password is logged out.
public struct PasswordChange: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var signedIn: EmailAddress?

    public init(signedIn: EmailAddress? = nil) {
      self.signedIn = signedIn
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case submitted(current: Secret, new: Secret)
    case answered(Result<EmailAddress, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case changed(EmailAddress)
      case refused(AccountError)
    }
  }

  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .submitted(current, new):
        guard let email = state.signedIn else { return .send(.delegate(.refused(.passwordRequired))) }
        guard !current.value.isEmpty else { return .send(.delegate(.refused(.passwordRequired))) }
        if let problem = PasswordPolicy.problem(with: new.value) { return .send(.delegate(.refused(.password(problem)))) }
        return .asking({ try await accounts.changePassword(current.value, new.value) }) { .answered($0.map { email }) }
      case let .answered(.success(email)):
        return .send(.delegate(.changed(email)))
      case let .answered(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }
}
