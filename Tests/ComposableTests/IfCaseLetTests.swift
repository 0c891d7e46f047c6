import CasePaths
import Clocks
import Composable
import ComposableTesting
import Dependencies
import Testing

/// `ifCaseLet`, as TCA documents it: an app whose state is either signed out or signed in, the
/// signed-in part a feature of its own that runs only in its case, its timer cancelled when the
/// app signs out.
struct Session: Reducer {
  @CasePathable
  enum State: Equatable, Sendable {
    case signedOut
    case signedIn(SignedIn.State)
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case signInTapped
    case signedIn(SignedIn.Action)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .signInTapped:
        state = .signedIn(SignedIn.State())
        return .none
      case .signedIn(.signOutTapped):
        state = .signedOut
        return .none
      case .signedIn:
        return .none
      }
    }
    .ifCaseLet(\.signedIn, action: \.signedIn) { SignedIn() }
  }
}

struct SignedIn: Reducer {
  struct State: Equatable, Sendable {
    var ticks = 0
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case startTimerTapped
    case tick
    case signOutTapped
  }

  @Dependency(\.continuousClock) var clock

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .startTimerTapped:
        return .run { send in
          for await _ in clock.timer(interval: .seconds(1)) { await send(.tick) }
        }
      case .tick:
        state.ticks += 1
        return .none
      case .signOutTapped:
        return .none
      }
    }
  }
}

struct IfCaseLetTests {
  @Test func theChildRunsInItsCaseAndItsEffectsEndWhenTheCaseDoes() async {
    let clock = TestClock()
    let store = TestStore(initialState: Session.State.signedOut) { Session() } withDependencies: { $0.continuousClock = clock }
    await store.send(.signInTapped) { $0 = .signedIn(SignedIn.State()) }
    await store.send(.signedIn(.startTimerTapped))
    // A second at a time, each once the timer sleeps: one advance of two seconds could pass the
    // second tick's deadline before a busy machine has the timer sleeping again.
    await clock.advanceOnceSleeping(by: .seconds(1))
    await store.receive(.signedIn(.tick)) { $0 = .signedIn(SignedIn.State(ticks: 1)) }
    await clock.advanceOnceSleeping(by: .seconds(1))
    await store.receive(.signedIn(.tick)) { $0 = .signedIn(SignedIn.State(ticks: 2)) }
    // Signing out leaves the case: the timer is cancelled, no tick follows.
    await store.send(.signedIn(.signOutTapped)) { $0 = .signedOut }
    await clock.advance(by: .seconds(5))
  }

  /// Where TCA reports an issue: a child action while the state is in another case (on a server,
  /// a stale or forged request). The state does not change and the parent does not act.
  @Test func aChildActionInAnotherCaseIsReportedAndChangesNothing() async {
    await withKnownIssue {
      let store = TestStore(initialState: Session.State.signedOut) { Session() }
      await store.send(.signedIn(.tick))
    } matching: { issue in
      message(of: issue).contains(#"An "ifCaseLet" at "ComposableTests/IfCaseLetTests.swift:37" received a child action while its state was in another case"#)
    }
  }

  /// Where TCA's TestStore fails: a child effect the test leaves running.
  @Test func aTimerLeftRunningInItsCaseFails() async {
    await withKnownIssue {
      let store = TestStore(initialState: Session.State.signedIn(SignedIn.State())) { Session() } withDependencies: {
        $0.continuousClock = TestClock()
      }
      await store.send(.signedIn(.startTimerTapped))
      await store.finish()
    } matching: { issue in
      message(of: issue).hasPrefix("Expected effects to finish, but 1 effect still running")
    }
  }
}
