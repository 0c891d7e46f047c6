import CasePaths
import Composable
import Dependencies
import Foundation

/// The forms that sign a browser in to an account: registering an address and a password (the
/// guest's progress becomes the account's, nothing lost), and logging in from any browser (what
/// that browser's guest did moves into the account, paid once: `UserProgress.absorb`).
public struct SignInForm: Reducer, Sendable {
  public enum Kind: Equatable, Sendable {
    case register, logIn
  }

  public struct State: Equatable, Sendable {
    /// Which form the page shows.
    public var kind: Kind
    /// Who is signed in now: they cannot sign in again before logging out.
    public var signedIn: EmailAddress?
    /// The address typed last: shown again when the form is refused.
    public var email = ""

    public init(_ kind: Kind, signedIn: EmailAddress? = nil, email: String = "") {
      self.kind = kind
      self.signedIn = signedIn
      self.email = email
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested(Kind)
    case submitted(Kind, email: String, password: Secret)
    case answered(Result<SignIn, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case signedIn(SignIn)
      case refused(AccountError)
    }
  }

  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .pageRequested(kind):
        state.kind = kind
        return .none
      case let .submitted(kind, email, password):
        state.kind = kind
        state.email = email
        guard state.signedIn == nil else { return .send(.delegate(.refused(.alreadySignedIn))) }
        let address = EmailAddress(email)
        if let address { state.email = address.value }
        switch state.kind {
        case .register:
          guard let address else { return .send(.delegate(.refused(.invalidEmail))) }
          if let problem = PasswordPolicy.problem(with: password.value) {
            return .send(.delegate(.refused(.password(problem))))
          }
          return call { try await accounts.register(address, password.value) }
        case .logIn:
          // A malformed address or an empty password has no account: the same words as a wrong one.
          guard let address, !password.value.isEmpty else { return .send(.delegate(.refused(.wrongCredentials))) }
          return call { try await accounts.logIn(address, password.value) }
        }
      case let .answered(.success(signIn)):
        return .send(.delegate(.signedIn(signIn)))
      case let .answered(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }

  private func call(_ operation: @escaping @Sendable () async throws -> SignIn) -> Effect<Action> {
    .asking(operation, answer: Action.answered)
  }
}
