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
    /// The operator at the desk: who asks for adjustments, and who may not approve their own.
    public var operatorEmail: String?
    /// The adjustments waiting for a second operator, on the desk's first page.
    public var waiting: [AdjustmentRequest] = []
    /// The newest messages that never reached their member, on the desk's first page.
    public var undelivered: [UndeliveredMail] = []
    /// The exchange requests waiting for their code, on the desk's first page.
    public var exchanges: [WaitingExchange] = []

    public init(operatorEmail: String? = nil) {
      self.operatorEmail = operatorEmail
    }
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
    /// The desk's first page: the adjustments waiting for a second operator, and what the form
    /// before did.
    case waitingRequested(outcome: SupportOutcome?)
    case waitingLoaded(Result<FirstPage, OperatorError>)
    /// 承認 or 却下 of an adjustment another operator asked for.
    case adjustmentDecided(TransactionID, approve: Bool)
    case decisionFinished(SupportOutcome)
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
  @Dependency(\.date.now) var now
  @Dependency(\.adjustmentPolicy) var policy

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .searchRequested(query):
        state.query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !state.query.isEmpty else { return .send(.waitingRequested(outcome: nil)) }
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
        return .send(.waitingRequested(outcome: nil))

      case let .waitingRequested(outcome):
        state.outcome = outcome
        return .run { send in
          do {
            await send(.waitingLoaded(.success(FirstPage(
              waiting: try await desk.waitingAdjustments(), undelivered: try await desk.undeliveredMail(), exchanges: try await desk.waitingExchanges()
            ))))
          } catch {
            await send(.waitingLoaded(.failure(error as? OperatorError ?? .unavailable)))
          }
        }

      case let .waitingLoaded(.success(page)):
        (state.waiting, state.undelivered, state.exchanges) = (page.waiting, page.undelivered, page.exchanges)
        return .send(.delegate(.search))

      case let .waitingLoaded(.failure(error)):
        return .send(.delegate(.failed(error)))

      case let .adjustmentDecided(id, approve):
        guard let me = state.operatorEmail else { return .send(.delegate(.failed(.notFound))) }
        return .run { [now] send in
          do {
            let request = try await desk.adjustment(id)
            guard request.isOpen else { throw SupportError.notWaiting }
            // Four eyes: whoever asked, never decides.
            guard request.requestedBy != me else { throw SupportError.ownRequest }
            guard approve else {
              try await desk.decideAdjustment(id, .refused(by: me, at: now))
              return await send(.decisionFinished(.done(.adjustmentRefused)))
            }
            // Approved by someone already (a stop before it was applied): applied now, once.
            if case .waiting = request.status { try await desk.decideAdjustment(id, .approved(by: me, at: now)) }
            try await apply(request, by: me)
            await send(.decisionFinished(.done(.adjustmentApproved)))
          } catch let refusal as SupportError {
            await send(.decisionFinished(.refused(refusal)))
          } catch {
            await send(.failed(error as? OperatorError ?? .unavailable))
          }
        }

      case let .decisionFinished(outcome):
        return .send(.waitingRequested(outcome: outcome))
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
        return .run { [operatorEmail = state.operatorEmail, now] send in
          do {
            switch request {
            case let .adjust(points, reason, id):
              guard let points = Self.points(points), let me = operatorEmail else { throw SupportError.invalidAmount }
              let reason = try UserProgress.checkedAdjustment(points: points, reason: reason)
              let request = AdjustmentRequest(id: id, user: user, points: points, reason: reason, requestedBy: me, requestedAt: now)
              guard try await desk.openAdjustment(request, policy) else {
                return await send(.actionFinished(user: user, .done(.awaitingApproval)))
              }
              try await desk.decideAdjustment(id, .approved(by: me, at: now))
              try await apply(request, by: me)
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

  /// Applies an approved adjustment in the user's own update (its form's id is its movement's:
  /// once), and says how it ended: applied, or failed (the balance could not take it).
  private func apply(_ request: AdjustmentRequest, by approver: String) async throws {
    do {
      _ = try await desk.perform(request.user, .adjust(points: request.points, reason: request.reason, id: request.id))
    } catch SupportError.alreadyDone {
      // Applied before a stop that left it approved: in the ledger once.
    } catch let refusal as SupportError {
      try await desk.decideAdjustment(request.id, .failed(refusal, by: approver, at: now))
      throw refusal
    }
    try await desk.decideAdjustment(request.id, .applied(by: approver, at: now))
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

extension SupportDesk {
  /// The desk's first page: the adjustments waiting for a second operator (oldest first), and the
  /// newest messages that never reached their member.
  public struct FirstPage: Equatable, Sendable {
    public var waiting: [AdjustmentRequest]
    public var undelivered: [UndeliveredMail]
    public var exchanges: [WaitingExchange]

    public init(waiting: [AdjustmentRequest], undelivered: [UndeliveredMail] = [], exchanges: [WaitingExchange] = []) {
      self.waiting = waiting
      self.undelivered = undelivered
      self.exchanges = exchanges
    }
  }
}
