import CasePaths
import Composable
import Dependencies
import Foundation

/// The support desk (`/admin/users`): an operator finds a user by address or id, sees their
/// balance, ledger, answers and exchange requests, and puts things right: points adjusted with a
/// reason, an invalid answer approved (paid once) or confirmed, a stuck exchange asked again or
/// refunded. Scoped into `OperatorFeature`, which maps where it leads to a destination.
public struct SupportDesk: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    /// What was searched for, shown again with "not found".
    public var query = ""
    public var notFound = false
    public var dossier: Dossier?
    /// The id the page's adjustment form gives its movement: a form sent twice adjusts once.
    public var adjustmentID: TransactionID?
    /// What the last form did, shown on the user's page after it.
    public var outcome: SupportOutcome?

    public init() {}
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// The search page; with a query, the user it names.
    case searchRequested(String)
    case searchFinished(Result<String?, OperatorError>)
    /// A user's page, saying what the form before it did.
    case dossierRequested(String, outcome: SupportOutcome?)
    case dossierLoaded(Result<Dossier, OperatorError>)
    /// A form of the user's page: an adjustment, an approval, an exchange asked again or refunded.
    case actionSubmitted(user: String, Request)
    case actionFinished(user: String, SupportOutcome)
    case failed(OperatorError)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      case search
      case user(String, SupportOutcome?)
      case failed(OperatorError)
    }
  }

  /// What an operator asks of the desk for a user.
  public enum Request: Equatable, Sendable {
    /// Points as typed (a whole number, full-width digits and signs allowed), the reason, and the
    /// movement's id the form carries.
    case adjust(points: String, reason: String, id: TransactionID)
    case approveAnswer(SurveyID)
    case confirmAnswer(SurveyID)
    case retryExchange(Int)
    case refundExchange(Int)
  }

  @Dependency(\.supportDesk) var desk
  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.uuid) var uuid

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .searchRequested(query):
        state.query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !state.query.isEmpty else { return .send(.delegate(.search)) }
        return .run { [query = state.query] send in
          do {
            await send(.searchFinished(.success(try await desk.find(query))))
          } catch {
            await send(.searchFinished(.failure(error as? OperatorError ?? .unavailable)))
          }
        }
      case let .searchFinished(.success(user?)):
        return .send(.delegate(.user(user, nil)))
      case .searchFinished(.success(nil)):
        state.notFound = true
        return .send(.delegate(.search))
      case let .searchFinished(.failure(error)), let .dossierLoaded(.failure(error)), let .failed(error):
        return .send(.delegate(.failed(error)))
      case let .dossierRequested(user, outcome):
        state.outcome = outcome
        return .run { send in
          do {
            await send(.dossierLoaded(.success(try await desk.dossier(user))))
          } catch {
            await send(.dossierLoaded(.failure(error as? OperatorError ?? .unavailable)))
          }
        }
      case let .dossierLoaded(.success(dossier)):
        state.dossier = dossier
        state.adjustmentID = TransactionID(uuid())
        return .send(.delegate(.user(dossier.user, state.outcome)))
      case let .actionSubmitted(user, request):
        return .run { send in
          do {
            switch request {
            case let .adjust(points, reason, id):
              guard let points = Self.points(points) else { throw SupportError.invalidAmount }
              _ = try await desk.perform(user, .adjust(points: points, reason: reason, id: id))
              await send(.actionFinished(user: user, .done(.adjusted)))
            case let .approveAnswer(id):
              guard let survey = try await surveyClient.fetch(id) else { throw SupportError.notInvalid }
              _ = try await desk.perform(user, .approveAnswer(survey))
              await send(.actionFinished(user: user, .done(.approved)))
            case let .confirmAnswer(id):
              try await desk.confirmInvalid(user, id)
              await send(.actionFinished(user: user, .done(.confirmed)))
            case let .retryExchange(number):
              _ = try await desk.perform(user, .retryExchange(number))
              await send(.actionFinished(user: user, .done(.retried)))
            case let .refundExchange(number):
              _ = try await desk.perform(user, .refundExchange(number))
              await send(.actionFinished(user: user, .done(.ended)))
            }
          } catch let refusal as SupportError {
            await send(.actionFinished(user: user, .refused(refusal)))
          } catch {
            await send(.failed(error as? OperatorError ?? .unavailable))
          }
        }
      case let .actionFinished(user, outcome):
        state.outcome = outcome
        return .send(.delegate(.user(user, outcome)))
      case .delegate:
        return .none
      }
    }
  }

  /// `-100`, `＋１００`, `−50`: a whole number as an operator may type it; `nil` for anything else.
  static func points(_ text: String) -> Int? {
    var digits = Profile.halfWidthDigits(text.trimmingCharacters(in: .whitespaces))
    var sign = 1
    if let first = digits.first, "-－−+＋".contains(first) {
      sign = "+＋".contains(first) ? 1 : -1
      digits.removeFirst()
    }
    // Digits only after the one sign: `Int` itself would take a second one ("--5").
    guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits) else { return nil }
    return sign * value
  }
}
