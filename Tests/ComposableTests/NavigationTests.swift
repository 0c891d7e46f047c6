import CasePaths
import Clocks
import Composable
import ComposableTesting
import Dependencies
import Testing

/// A search box: each keystroke starts a slow search; only the newest may answer, and clearing
/// the box stops it.
private struct Search: Reducer {
  struct State: Equatable, Sendable {
    var query = ""
    var results: [String] = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case queryChanged(String)
    case clearButtonTapped
    case searchResponse([String])
  }

  private enum CancelID { case search }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .queryChanged(query):
        state.query = query
        return .run { send in
          try await clock.sleep(for: .milliseconds(300))
          await send(.searchResponse(["\(query)!"]))
        }
        .cancellable(id: CancelID.search, cancelInFlight: true)
      case .clearButtonTapped:
        state = State()
        return .cancel(id: CancelID.search)
      case let .searchResponse(results):
        state.results = results
        return .none
      }
    }
  }
}

/// A menu that asks, in a confirmation dialog, what to do with an item.
private struct Menu: Reducer {
  struct State: Equatable, Sendable {
    @Presents var dialog: ConfirmationDialogState<Action.Dialog>?
    var archived = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case moreButtonTapped
    case dialog(PresentationAction<Dialog>)

    @CasePathable
    enum Dialog: Equatable, Sendable {
      case archive
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .moreButtonTapped:
        state.dialog = ConfirmationDialogState(
          title: "What now?", titleVisibility: .visible,
          buttons: [ButtonState(action: .archive, label: "Archive"), ButtonState(role: .cancel, label: "Cancel")]
        )
        return .none
      case .dialog(.presented(.archive)):
        state.archived = true
        return .none
      case .dialog:
        return .none
      }
    }
    .ifLet(\.$dialog, action: \.dialog)
  }
}

struct NavigationTests {
  @Test func onlyTheNewestSearchAnswers() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) { Search() } withDependencies: { $0.continuousClock = clock }
    await store.send(.queryChanged("a")) { $0.query = "a" }
    await clock.advanceOnceSleeping(by: .milliseconds(200))
    await store.send(.queryChanged("ab")) { $0.query = "ab" }
    await clock.advanceOnceSleeping(by: .milliseconds(300))
    await store.receive(.searchResponse(["ab!"])) { $0.results = ["ab!"] }
  }

  @Test func clearingCancelsTheSearch() async {
    let clock = TestClock()
    let store = TestStore(initialState: Search.State()) { Search() } withDependencies: { $0.continuousClock = clock }
    await store.send(.queryChanged("a")) { $0.query = "a" }
    await store.send(.clearButtonTapped) { $0.query = "" }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func aDialogClosesOnceAChoiceIsMade() async {
    let store = TestStore(initialState: Menu.State()) { Menu() }
    await store.send(.moreButtonTapped) {
      $0.dialog = ConfirmationDialogState(
        title: "What now?", titleVisibility: .visible,
        buttons: [ButtonState(action: .archive, label: "Archive"), ButtonState(role: .cancel, label: "Cancel")]
      )
    }
    await store.send(\.dialog.presented.archive) {
      $0.archived = true
      $0.dialog = nil
    }
  }

  @Test func poppingAnElementCancelsItsEffects() async {
    let clock = TestClock()
    let store = TestStore(initialState: Pages.State()) { Pages() } withDependencies: { $0.continuousClock = clock }
    await store.send(.path(.push(id: 0, state: Search.State()))) { $0.path.append(Search.State()) }
    await store.send(.path(.element(id: 0, action: .queryChanged("a")))) { $0.path[id: 0]?.query = "a" }
    await store.send(.path(.popFrom(id: 0))) { $0.path = [] }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }
}

/// Searches pushed on a stack.
private struct Pages: Reducer {
  struct State: Equatable, Sendable {
    var path = StackState<Search.State>()
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case path(StackActionOf<Search>)
  }

  var body: some ReducerOf<Self> {
    EmptyReducer()
      .forEach(\.path, action: \.path) { Search() }
  }
}
