import CasePaths
import Composable
import Dependencies
import Foundation

/// Choosing a new password from a link by mail, for a member who forgot theirs: asked for with
/// an address, the same answer whether an account has it or not (the page never tells who is a
/// member); the link works once, for `linkLifetime`; using it ends every session of the account.
/// Links go to an address within `LinkLimit`, and a client asks within the login limits.
public struct PasswordReset: Reducer, Sendable {
  public static let linkLifetime: TimeInterval = 60 * 60

  public struct State: Equatable, Sendable {
    /// Messages to send with this change.
    public var outbox: [MailRequest]

    public init(outbox: [MailRequest] = []) {
      self.outbox = outbox
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// The form of /password/forgot was sent with this address.
    case requestSubmitted(email: String)
    case linkIssued(EmailAddress, requestedAt: Date, expires: Date, Result<Secret?, AccountError>)
    /// The form of a reset link's page was sent with a new password.
    case resetSubmitted(token: Secret, password: Secret)
    case resetAnswered(Result<EmailAddress, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      /// Asked: a link went out if an account has the address (the same either way).
      case requested
      /// The password of this address's account was changed.
      case reset(EmailAddress)
      case refused(AccountError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .requestSubmitted(email):
        guard let address = EmailAddress(email) else { return .send(.delegate(.refused(.invalidEmail))) }
        let (now, expires) = (now, now.addingTimeInterval(Self.linkLifetime))
        return .asking({ try await accounts.issueReset(address, expires) }) {
          .linkIssued(address, requestedAt: now, expires: expires, $0)
        }
      case let .linkIssued(address, requestedAt, expires, .success(token)):
        if let token { state.outbox.append(MailRequest(to: address, .passwordReset(token: token, requestedAt: requestedAt, expires: expires))) }
        return .send(.delegate(.requested))
      case let .linkIssued(_, _, _, .failure(error)):
        return .send(.delegate(.refused(error)))
      case let .resetSubmitted(token, password):
        if let problem = PasswordPolicy.problem(with: password.value) { return .send(.delegate(.refused(.password(problem)))) }
        return .asking({ try await accounts.resetPassword(token, password.value) }, answer: Action.resetAnswered)
      case let .resetAnswered(.success(email)):
        return .send(.delegate(.reset(email)))
      case let .resetAnswered(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }
}
