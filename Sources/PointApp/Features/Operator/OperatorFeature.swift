import CasePaths
import Composable
import Dependencies
import Foundation

/// The root feature of the people who run PointApp (`/admin`), beside `AppFeature`: signing in,
/// the surveys and their states, closing one early, the audit log. It decides where the operator
/// is (`destination`); the web shell maps that to a response, as it does for users.
public struct OperatorFeature: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    /// The operator signed in: set by the web layer from the session; `nil` signed out.
    public var signedIn: String?
    /// Why the last sign-in was refused (shown on the sign-in page once).
    public var refusal: AccountError?
    /// Who the browser is from now on, when a request changed it: the web layer gives the
    /// session a new id for it.
    public var identityChange: IdentityChange?
    public var destination: Destination?
    // What the pages show: built per request, never saved.
    public var surveys: [Survey] = []
    public var now: Date?
    public var auditPage = AuditPage(entries: [], next: nil)
    /// The cursor the audit page shows from (`nil`: the newest).
    public var auditCursor: String?

    public init(signedIn: String? = nil, refusal: AccountError? = nil) {
      self.signedIn = signedIn
      self.refusal = refusal
    }
  }

  public enum IdentityChange: Equatable, Sendable {
    case signedIn(String)
    case signedOut
  }

  public enum Destination: Equatable, Sendable {
    case login
    case surveys
    case audit
    case notFound
    case unavailable
    case tooManyAttempts
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// `/admin`: the console's first page.
    case homeRequested
    /// The sign-in page; `refused` after a sign-in that was (the page says why).
    case loginPageRequested(refused: Bool)
    case loginSubmitted(email: String, password: Secret)
    case loginFinished(Result<String, AccountError>)
    case surveysPageRequested
    case surveysLoaded(Result<[Survey], OperatorError>)
    case closeSurveyButtonTapped(SurveyID)
    case surveyClosed(Result<Survey, OperatorError>)
    case auditPageRequested(cursor: String?)
    case auditLoaded(Result<AuditPage, OperatorError>)
    case logoutButtonTapped
  }

  @Dependency(\.date.now) var now
  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.operators) var operators

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      // Everything but signing in is for a signed-in operator; the web layer answers 404 to
      // anyone else before an action is sent, and this holds if one ever is.
      switch action {
      case .loginPageRequested, .loginSubmitted, .loginFinished, .homeRequested:
        break
      default:
        guard state.signedIn != nil else {
          state.destination = .notFound
          return .none
        }
      }
      switch action {
      case .homeRequested:
        if state.signedIn == nil {
          state.destination = .login
          return .none
        }
        return loadSurveys(&state)

      case let .loginPageRequested(refused):
        guard state.signedIn == nil else { return loadSurveys(&state) }
        if refused { state.refusal = .wrongCredentials }
        state.destination = .login
        return .none

      case let .loginSubmitted(email, password):
        state.refusal = nil
        return .run { send in
          do {
            await send(.loginFinished(.success(try await operators.signIn(email, password))))
          } catch {
            await send(.loginFinished(.failure(AccountError(error))))
          }
        }

      case let .loginFinished(.success(email)):
        state.identityChange = .signedIn(email)
        state.destination = .surveys
        return .none

      case let .loginFinished(.failure(error)):
        state.refusal = error
        state.destination = error == .throttled ? .tooManyAttempts : .login
        return .none

      case .surveysPageRequested:
        return loadSurveys(&state)

      case let .surveysLoaded(.success(surveys)):
        state.surveys = SurveySort.newest.sorted(surveys)
        state.destination = .surveys
        return .none

      case .surveysLoaded(.failure):
        state.destination = .unavailable
        return .none

      case let .closeSurveyButtonTapped(id):
        return .run { send in
          do {
            await send(.surveyClosed(.success(try await operators.closeSurvey(id))))
          } catch {
            await send(.surveyClosed(.failure(error as? OperatorError ?? .unavailable)))
          }
        }

      case .surveyClosed(.success):
        return loadSurveys(&state)

      case let .surveyClosed(.failure(error)):
        state.destination = error == .notFound ? .notFound : .unavailable
        return .none

      case let .auditPageRequested(cursor):
        state.auditCursor = cursor
        return .run { send in
          do {
            await send(.auditLoaded(.success(try await operators.auditPage(cursor))))
          } catch {
            await send(.auditLoaded(.failure(error as? OperatorError ?? .unavailable)))
          }
        }

      case let .auditLoaded(.success(page)):
        state.auditPage = page
        state.destination = .audit
        return .none

      case let .auditLoaded(.failure(error)):
        // A cursor that no page gave is no page.
        state.destination = error == .notFound ? .notFound : .unavailable
        return .none

      case .logoutButtonTapped:
        state.identityChange = .signedOut
        state.destination = .login
        return .none
      }
    }
  }

  /// The surveys page: every survey of the catalog with its state now, newest first.
  private func loadSurveys(_ state: inout State) -> Effect<Action> {
    state.now = now
    return .run { [surveyClient] send in
      do {
        await send(.surveysLoaded(.success(try await surveyClient.fetchAll())))
      } catch {
        await send(.surveysLoaded(.failure(.unavailable)))
      }
    }
  }
}
