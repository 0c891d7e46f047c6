import CasePaths
import Composable
import Dependencies
import Foundation

/// Leaving (退会): the points that will be lost shown first, the password asked, refused while an
/// exchange is being fulfilled. The account, its address and the profile go; answers stay under
/// their pseudonym; a last mail confirms it.
public struct Withdrawal: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var signedIn: EmailAddress?
    public var progress: UserProgress
    /// A refused form's address, kept with the user's data: it goes too.
    public var enteredEmail: String?
    public var outbox: [MailRequest]

    public init(signedIn: EmailAddress? = nil, progress: UserProgress = UserProgress(), enteredEmail: String? = nil, outbox: [MailRequest] = []) {
      self.signedIn = signedIn
      self.progress = progress
      self.enteredEmail = enteredEmail
      self.outbox = outbox
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case submitted(password: Secret)
    case answered(Result<EmailAddress, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case withdrawn(EmailAddress)
      case refused(AccountError)
    }
  }

  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .submitted(password):
        guard state.signedIn != nil else { return .send(.delegate(.refused(.sessionEnded))) }
        guard !password.value.isEmpty else { return .send(.delegate(.refused(.passwordRequired))) }
        guard !state.progress.exchanges.contains(where: \.isPending) else { return .send(.delegate(.refused(.exchangePending))) }
        return .asking({ try await accounts.withdraw(password.value) }, answer: Action.answered)
      case let .answered(.success(email)):
        let lost = state.progress.ledger.balance
        state.progress.forgetMember()
        state.enteredEmail = nil
        state.outbox.append(MailRequest(to: email, .withdrawn(lost: lost)))
        return .send(.delegate(.withdrawn(email)))
      case let .answered(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }
}
