import CasePaths
import Composable
import ComposableTesting
import Dependencies
import Foundation
import Testing

/// `dependency(_:_:)` and `transformDependency(_:transform:)`, as TCA documents them: a child
/// run with one dependency of its own, its effects included, while the rest of the app keeps the
/// one it was given.
struct Stamps: Reducer {
  struct State: Equatable, Sendable {
    var parent: [UUID] = []
    var child: [UUID] = []
    var childLater: [UUID] = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case parentTapped
    case child(Stamp.Action)
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Scope(state: \.stamp, action: \.child) {
      Stamp().dependency(\.uuid, .constant(UUID(0)))
    }
    Reduce { state, action in
      if action == .parentTapped { state.parent.append(uuid()) }
      return .none
    }
  }
}

extension Stamps.State {
  var stamp: Stamp.State {
    get { Stamp.State(stamps: child, later: childLater) }
    set { (child, childLater) = (newValue.stamps, newValue.later) }
  }
}

/// Stamps a uuid now, and another from its effect.
struct Stamp: Reducer {
  struct State: Equatable, Sendable {
    var stamps: [UUID] = []
    var later: [UUID] = []
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case tapped
    case stampedLater(UUID)
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .tapped:
        state.stamps.append(uuid())
        return .run { send in
          @Dependency(\.uuid) var uuid
          await send(.stampedLater(uuid()))
        }
      case let .stampedLater(id):
        state.later.append(id)
        return .none
      }
    }
  }
}

struct DependencyReducerTests {
  @Test func theChildAndItsEffectsGetTheirOwnDependencyAndTheParentKeepsItsOwn() async {
    let store = TestStore(initialState: Stamps.State()) { Stamps() } withDependencies: { $0.uuid = .incrementing }
    await store.send(.child(.tapped)) { $0.child = [UUID(0)] }
    await store.receive(.child(.stampedLater(UUID(0)))) { $0.childLater = [UUID(0)] }
    await store.send(.parentTapped) { $0.parent = [UUID(0)] }
    await store.send(.parentTapped) { $0.parent = [UUID(0), UUID(1)] }
  }

  @Test func transformDependencyAdjustsWhatTheParentWasGivenAndChainedCallsAllApply() async {
    let store = TestStore(initialState: Stamp.State()) {
      Stamp()
        .transformDependency(\.uuid) { uuid in
          let base = uuid
          uuid = UUIDGenerator { UUID(uuidString: base().uuidString.replacingOccurrences(of: "00000000-0000", with: "ffffffff-0000"))! }
        }
        .dependency(\.date.now, Date(timeIntervalSince1970: 0))
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.tapped) { $0.stamps = [UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000000")!] }
    await store.receive(.stampedLater(UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!)) {
      $0.later = [UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!]
    }
  }

  /// Where TCA's TestStore fails: the test assumed the child used the parent's generator.
  @Test func assumingTheParentsDependencyInTheChildFails() async {
    await withKnownIssue {
      let store = TestStore(initialState: Stamps.State()) { Stamps() } withDependencies: { $0.uuid = .incrementing }
      await store.send(.child(.tapped)) { $0.child = [UUID(7)] }
      await store.skipReceivedActions()
    } matching: { issue in
      message(of: issue).hasPrefix("A state change does not match expectation")
    }
  }
}
