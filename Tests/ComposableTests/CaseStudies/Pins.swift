import CasePaths
import Composable
import Dependencies
import Foundation

/// Seed 000's pinNest: a list that loads its items on appear (`FeatureAReducer`), and an item's
/// detail (`FeatureBReducer`) presented by the root (`AppReducer`) as a destination.
struct Item: Equatable, Identifiable, Sendable {
  let id: Int
  var title: String
}

struct APIError: Error, Equatable {}

struct FeatureAReducer: Reducer {
  struct State: Equatable, Sendable {
    var items: [Item] = []
    var isLoading = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case onAppear
    case fetchItemsResponse(Result<[Item], APIError>)
    case itemTapped(Item)
  }

  @Dependency(\.apiClient) var apiClient

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .onAppear:
        state.isLoading = true
        return .run { send in
          do {
            await send(.fetchItemsResponse(.success(try await apiClient.fetchItems())))
          } catch {
            await send(.fetchItemsResponse(.failure(APIError())))
          }
        }
      case let .fetchItemsResponse(.success(items)):
        state.isLoading = false
        state.items = items
        return .none
      case .fetchItemsResponse(.failure):
        state.isLoading = false
        return .none
      case .itemTapped:
        return .none
      }
    }
  }
}

/// An item's detail: loads its notes on appear.
struct FeatureBReducer: Reducer {
  struct State: Equatable, Sendable {
    var item: Item
    var notes: String?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case onAppear
    case notesResponse(String)
  }

  @Dependency(\.apiClient) var apiClient

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .onAppear:
        return .run { [id = state.item.id] send in
          await send(.notesResponse(try await apiClient.fetchNotes(id)))
        }
      case let .notesResponse(notes):
        state.notes = notes
        return .none
      }
    }
  }
}

struct AppReducer: Reducer {
  struct State: Equatable, Sendable {
    var featureA = FeatureAReducer.State()
    @Presents var destination: Destination.State?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case featureA(FeatureAReducer.Action)
    case destination(PresentationAction<Destination.Action>)
  }

  struct Destination: Reducer {
    @CasePathable
    enum State: Equatable, Sendable {
      case featureB(FeatureBReducer.State)
    }

    @CasePathable
    enum Action: Equatable, Sendable {
      case featureB(FeatureBReducer.Action)
    }

    var body: some ReducerOf<Self> {
      Scope(state: \.featureB, action: \.featureB) { FeatureBReducer() }
    }
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.featureA, action: \.featureA) { FeatureAReducer() }
    Reduce { state, action in
      switch action {
      case let .featureA(.itemTapped(item)):
        state.destination = .featureB(FeatureBReducer.State(item: item))
        return .none
      case .featureA, .destination:
        return .none
      }
    }
    .ifLet(\.$destination, action: \.destination) { Destination() }
  }
}

struct APIClient: Sendable {
  var fetchItems: @Sendable () async throws -> [Item]
  var fetchNotes: @Sendable (_ id: Int) async throws -> String
}

extension APIClient: TestDependencyKey {
  static let testValue = Self(
    fetchItems: unimplemented("APIClient.fetchItems", placeholder: []),
    fetchNotes: unimplemented("APIClient.fetchNotes", placeholder: "")
  )
}

extension DependencyValues {
  var apiClient: APIClient {
    get { self[APIClient.self] }
    set { self[APIClient.self] = newValue }
  }
}
