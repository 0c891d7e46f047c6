import ComposableTesting
import Dependencies
import Testing

struct CounterTests {
  @Test func buttonsChangeTheCount() async {
    let store = TestStore(initialState: Counter.State()) { Counter() }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(\.incrementButtonTapped) { $0.count = 2 }
    await store.send(.decrementButtonTapped) { $0.count = 1 }
  }

  @Test func numberFactIsShownThenDismissed() async {
    let store = TestStore(initialState: Counter.State(count: 3)) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is odd." }
    }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(\.numberFactResponse) {
      $0.isLoading = false
      $0.numberFactAlert = "3 is odd."
    }
    await store.send(.factAlertDismissed) { $0.numberFactAlert = nil }
  }

  @Test func failedNumberFactGoesToTheCatchHandler() async {
    struct Offline: Error {}
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { _ in throw Offline() }
    }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(.numberFactFailed) {
      $0.isLoading = false
      $0.numberFactAlert = "Could not load a number fact."
    }
  }

  @Test func anUnoverriddenDependencyFailsTheTest() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.receive(\.numberFactResponse) {
        $0.isLoading = false
        $0.numberFactAlert = ""
      }
    } matching: { issue in
      message(of: issue).hasPrefix("Unimplemented: NumberFactClient.fetch …")
    }
  }
}
