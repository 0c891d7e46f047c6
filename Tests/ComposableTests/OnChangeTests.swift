import CasePaths
import Composable
import ComposableTesting
import Testing

/// `onChange(of:_:)`, as TCA documents it: a settings form whose "reset" needs the sound level to
/// follow the volume, said once instead of in every action that can move the volume.
struct Settings: Reducer {
  struct State: Equatable, Sendable {
    var volume = 5
    var muted = false
    var changes = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case volumeChanged(Int)
    case resetTapped
    case renamed
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .volumeChanged(volume): state.volume = volume
      case .resetTapped: state.volume = 5
      case .renamed: break
      }
      return .none
    }
    .onChange(of: \.volume) { oldValue, state in
      state.muted = state.volume == 0
      state.changes += 1
      #expect(oldValue != state.volume, "called only for a change, with the value from before")
      return .none
    }
  }
}

/// A value whose every change is logged by an effect.
struct Logged: Reducer {
  typealias State = Int

  @CasePathable
  enum Action: Equatable, Sendable {
    case set(Int)
    case logged(Int)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if case let .set(value) = action { state = value }
      return .none
    }
    .onChange(of: { $0 }) { oldValue, _ in .send(.logged(oldValue)) }
  }
}

struct OnChangeTests {
  @Test func theChangeRunsOnceForEachActionThatMovesTheValue() async {
    let store = TestStore(initialState: Settings.State()) { Settings() }
    await store.send(.volumeChanged(0)) {
      $0.volume = 0
      $0.muted = true
      $0.changes = 1
    }
    await store.send(.resetTapped) {
      $0.volume = 5
      $0.muted = false
      $0.changes = 2
    }
    // The same value again, or an action that does not touch it: nothing follows.
    await store.send(.volumeChanged(5))
    await store.send(.renamed)
  }

  /// Where TCA's TestStore fails: a test that does not describe what `onChange` did.
  @Test func aChangeTheTestDidNotDescribeFails() async {
    await withKnownIssue {
      let store = TestStore(initialState: Settings.State()) { Settings() }
      await store.send(.volumeChanged(0)) { $0.volume = 0 }
    } matching: { issue in
      let text = message(of: issue)
      return text.hasPrefix("A state change does not match expectation") && text.contains("muted") && text.contains("changes")
    }
  }

  /// It sees what the reducer it is attached to changed, not what a parent changes after it.
  @Test func aParentsChangeAfterItIsNotSeen() async {
    struct Parent: Reducer {
      var body: some ReducerOf<Settings> {
        Settings()
        Reduce { state, action in
          if action == .renamed { state.volume = 9 }
          return .none
        }
      }
    }
    let store = TestStore(initialState: Settings.State()) { Parent() }
    await store.send(.renamed) { $0.volume = 9 }
  }

  /// Its effect is merged with the reducer's.
  @Test func itsEffectRunsWithTheReducers() async {
    let store = TestStore(initialState: 1) { Logged() }
    await store.send(.set(2)) { $0 = 2 }
    await store.receive(.logged(1))
  }
}
