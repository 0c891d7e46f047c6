import Composable
import ComposableTesting
import ConcurrencyExtras
import Testing

/// `_printChanges()`, as TCA documents it: each action a reducer receives, then the change it
/// made to the state as a diff, written where the printer says (here, collected).
struct PrintChangesTests {
  @Test func eachActionAndItsDiffAreWritten() async {
    let written = LockIsolated<[String]>([])
    let store = TestStore(initialState: Counter.State()) {
      Counter()._printChanges(.customDump { text in written.withValue { $0.append(text) } })
    }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.factAlertDismissed)
    #expect(written.value == [
      """
      received action:
        Counter.Action.incrementButtonTapped
        Counter.State(
      −   count: 0,
      +   count: 1,
          isLoading: false,
          numberFactAlert: nil
        )
      """,
      """
      received action:
        Counter.Action.factAlertDismissed
        (No state changes)
      """,
    ])
  }

  @Test func actionLabelsWriteOnlyTheActions() async {
    let written = LockIsolated<[String]>([])
    let store = TestStore(initialState: Counter.State()) {
      Counter()._printChanges(.actionLabels { text in written.withValue { $0.append(text) } })
    }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    #expect(written.value == ["received action: Counter.Action.incrementButtonTapped"])
  }

  /// A `nil` printer writes nothing, and the reducer is unchanged.
  @Test func noPrinterNoOutput() async {
    let store = TestStore(initialState: Counter.State()) { Counter()._printChanges(nil) }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
  }
}
