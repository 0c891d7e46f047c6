import CasePaths
import Composable
import Dependencies

/// Seed 002's counter: +/− buttons and a fact about the number from an API, shown in an alert.
struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var isLoading = false
    var numberFactAlert: String?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case decrementButtonTapped
    case incrementButtonTapped
    case numberFactButtonTapped
    case numberFactResponse(String)
    case numberFactFailed
    case factAlertDismissed
  }

  @Dependency(\.numberFact) var numberFact

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        return .none
      case .incrementButtonTapped:
        state.count += 1
        return .none
      case .numberFactButtonTapped:
        state.isLoading = true
        return .run { [count = state.count] send in
          await send(.numberFactResponse(try await numberFact.fetch(count)))
        } catch: { _, send in
          await send(.numberFactFailed)
        }
      case let .numberFactResponse(fact):
        state.isLoading = false
        state.numberFactAlert = fact
        return .none
      case .numberFactFailed:
        state.isLoading = false
        state.numberFactAlert = "Could not load a number fact."
        return .none
      case .factAlertDismissed:
        state.numberFactAlert = nil
        return .none
      }
    }
  }
}

struct NumberFactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFactClient: TestDependencyKey {
  static let testValue = Self(fetch: unimplemented("NumberFactClient.fetch", placeholder: ""))
}

extension DependencyValues {
  var numberFact: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}
