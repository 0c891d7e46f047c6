import CasePaths
import Composable
import Dependencies
import Foundation

/// Proving that the account's address is the member's: a link by mail at registration and on
/// request, valid `linkLifetime` and once (a newer link replaces it). Until it is used the account
/// answers surveys and earns, but exchanges nothing. Links are sent again within `LinkLimit`.
public struct AddressVerification: Reducer, Sendable {
  public static let linkLifetime: TimeInterval = 24 * 60 * 60

  public struct State: Equatable, Sendable {
    public var signedIn: EmailAddress?
    public var status: AddressStatus?
    /// Messages to send with this change.
    public var outbox: [MailRequest]

    public init(signedIn: EmailAddress? = nil, status: AddressStatus? = nil, outbox: [MailRequest] = []) {
      self.signedIn = signedIn
      self.status = status
      self.outbox = outbox
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// An account was registered under this address now: its first link goes out.
    case registered(EmailAddress)
    /// "確認メールを再送" was pressed.
    case resendTapped
    case linkIssued(EmailAddress, expires: Date, resent: Bool, Result<Secret?, AccountError>)
    /// The button of a verification link's page was pressed.
    case confirmTapped(token: Secret)
    case confirmed(Result<EmailAddress, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      /// A link went out (`resent`: on request, not at registration).
      case linkSent(EmailAddress, resent: Bool)
      case verified(EmailAddress)
      case refused(AccountError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .registered(email):
        return issue(for: email, resent: false)
      case .resendTapped:
        guard let email = state.signedIn, let status = state.status else { return .send(.delegate(.refused(.sessionEnded))) }
        guard !status.isVerified else { return .send(.delegate(.refused(.alreadyVerified))) }
        guard LinkLimit.allows(after: status.linksSent, at: now) else { return .send(.delegate(.refused(.tooManyLinks))) }
        return issue(for: email, resent: true)
      case let .linkIssued(email, expires, resent, .success(token)):
        guard let token else { return .send(.delegate(.refused(.sessionEnded))) }
        state.outbox.append(MailRequest(to: email, .addressVerification(token: token, expires: expires)))
        state.status?.linksSent.append(now)
        return .send(.delegate(.linkSent(email, resent: resent)))
      case let .linkIssued(_, _, _, .failure(error)):
        return .send(.delegate(.refused(error)))
      case let .confirmTapped(token):
        return .asking({ try await accounts.verifyAddress(token) }, answer: Action.confirmed)
      case let .confirmed(.success(email)):
        if state.signedIn == email { state.status?.verifiedAt = now }
        return .send(.delegate(.verified(email)))
      case let .confirmed(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }

  private func issue(for email: EmailAddress, resent: Bool) -> Effect<Action> {
    let expires = now.addingTimeInterval(Self.linkLifetime)
    return .asking({ try await accounts.issueVerification(email, expires) }) {
      .linkIssued(email, expires: expires, resent: resent, $0)
    }
  }
}
