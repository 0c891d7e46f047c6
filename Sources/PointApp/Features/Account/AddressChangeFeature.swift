import CasePaths
import Composable
import Dependencies
import Foundation

/// Moving the account to another address: asked with the password, confirmed from a link sent to
/// the new address (valid `linkLifetime`, once), and the old address told when it is done.
public struct AddressChangeFeature: Reducer, Sendable {
  public static let linkLifetime: TimeInterval = 24 * 60 * 60

  public struct State: Equatable, Sendable {
    public var signedIn: EmailAddress?
    public var outbox: [MailRequest]

    public init(signedIn: EmailAddress? = nil, outbox: [MailRequest] = []) {
      self.signedIn = signedIn
      self.outbox = outbox
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case submitted(newEmail: String, password: Secret)
    case linkIssued(EmailAddress, expires: Date, Result<Secret, AccountError>)
    /// The button of a change link's page was pressed.
    case confirmTapped(token: Secret)
    case confirmed(Result<AddressMove, AccountError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case linkSent(EmailAddress)
      case changed(AddressMove)
      case refused(AccountError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.accounts) var accounts

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .submitted(newEmail, password):
        guard let current = state.signedIn else { return .send(.delegate(.refused(.sessionEnded))) }
        guard let address = EmailAddress(newEmail) else { return .send(.delegate(.refused(.invalidEmail))) }
        guard address != current else { return .send(.delegate(.refused(.sameAddress))) }
        guard !password.value.isEmpty else { return .send(.delegate(.refused(.passwordRequired))) }
        let expires = now.addingTimeInterval(Self.linkLifetime)
        return .asking({ try await accounts.requestAddressChange(address, password.value, expires) }) {
          .linkIssued(address, expires: expires, $0)
        }
      case let .linkIssued(address, expires, .success(token)):
        state.outbox.append(MailRequest(to: address, .addressChange(token: token, expires: expires)))
        return .send(.delegate(.linkSent(address)))
      case let .linkIssued(_, _, .failure(error)):
        return .send(.delegate(.refused(error)))
      case let .confirmTapped(token):
        return .asking({ try await accounts.confirmAddressChange(token) }, answer: Action.confirmed)
      case let .confirmed(.success(move)):
        state.outbox.append(MailRequest(to: move.from, .addressChanged(to: move.to), about: move.to))
        return .send(.delegate(.changed(move)))
      case let .confirmed(.failure(error)):
        return .send(.delegate(.refused(error)))
      case .delegate:
        return .none
      }
    }
  }
}
