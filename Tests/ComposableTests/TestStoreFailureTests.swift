import Clocks
import ComposableTesting
import Dependencies
import Testing

/// The TestStore must catch every way a test can under-describe a feature.
struct TestStoreFailureTests {
  @Test func aWrongStateAssertionFailsWithADiff() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.incrementButtonTapped) { $0.count = 2 }
    } matching: { issue in
      message(of: issue) == """
        A state change does not match expectation: …

              Counter.State(
            −   count: 2,
            +   count: 1,
                isLoading: false,
                numberFactAlert: nil
              )

        (Expected: −, Actual: +)
        """
    }
  }

  @Test func aClosureThatChangesNothingWhileStateStaysIsReported() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.factAlertDismissed) { $0.numberFactAlert = nil }
    } matching: { issue in
      message(of: issue).hasPrefix("Expected state to change, but no change occurred.")
    }
  }

  @Test func anUnreceivedActionFailsWhenTheStoreEnds() async {
    await withKnownIssue {
      let store = counterWithZeroFacts()
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.finish()
    } matching: { issue in
      message(of: issue) == """
        The store received 1 unexpected action after this one: …

          Unhandled actions:
            Counter.Action.numberFactResponse("0 is zero.")
        """
    }
  }

  @Test func sendingWithAnActionStillUnreceivedFails() async {
    let messages = LockIsolated<[String]>([])
    await withKnownIssue {
      let store = counterWithZeroFacts()
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.send(.factAlertDismissed) { $0.numberFactAlert = nil }
    } matching: { issue in
      messages.withValue { $0.append(message(of: issue)) }
      return true
    }
    // Sending fails first; the action is then still unhandled when the store ends.
    #expect(messages.value == [
      """
      Must handle 1 received action before sending an action: …

        Unhandled actions:
          Counter.Action.numberFactResponse("0 is zero.")
      """,
      """
      The store received 1 unexpected action after this one: …

        Unhandled actions:
          Counter.Action.numberFactResponse("0 is zero.")
      """,
    ])
  }

  @Test func aReceivedActionOfTheWrongCaseFails() async {
    await withKnownIssue {
      let store = counterWithZeroFacts()
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.receive(.numberFactResponse("0 is one.")) {
        $0.isLoading = false
        $0.numberFactAlert = "0 is zero."
      }
    } matching: { issue in
      message(of: issue) == """
        Received unexpected action: …

            − Counter.Action.numberFactResponse("0 is one.")
            + Counter.Action.numberFactResponse("0 is zero.")

        (Expected: −, Received: +)
        """
    }
  }

  @Test func receivingWhenNothingWillArriveFails() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      await store.send(.incrementButtonTapped) { $0.count = 1 }
      await store.receive(\.numberFactResponse)
    } matching: { issue in
      message(of: issue)
        == #"Expected to receive an action of the case \.numberFactResponse, but didn't get one."#
    }
  }

  @Test func anUnfinishedEffectFailsFinish() async {
    let clock = TestClock()
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) {
        Counter()
      } withDependencies: {
        $0.continuousClock = clock
        $0.numberFact.fetch = { _ in
          try await clock.sleep(for: .seconds(60))
          return ""
        }
      }
      // The clock is never advanced: nothing could finish the effect, so finish fails at once.
      store.timeout = .zero
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.finish()
    } matching: { issue in
      message(of: issue).hasPrefix("Expected effects to finish, but 1 effect still running")
        && message(of: issue).contains(
          "An effect returned for this action is still running. It must complete before the end of the test. …"
        )
    }
  }

  @Test func anEffectStillRunningWhenTheStoreEndsFails() async {
    await withKnownIssue {
      let clock = TestClock()
      let store = TestStore(initialState: Counter.State()) {
        Counter()
      } withDependencies: {
        $0.continuousClock = clock
        $0.numberFact.fetch = { _ in
          try await clock.sleep(for: .seconds(60))
          return ""
        }
      }
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    } matching: { issue in
      message(of: issue).hasPrefix(
        "An effect returned for this action is still running. It must complete before the end of the test. …"
      )
    }
  }

  @Test func nonExhaustiveStoresAssertOnlyWhatMatters() async {
    let store = counterWithZeroFacts()
    store.exhaustivity = .off
    await store.send(.incrementButtonTapped)
    await store.send(.numberFactButtonTapped)
    await store.receive(\.numberFactResponse) { $0.numberFactAlert = "1 is zero." }
    #expect(store.state == Counter.State(count: 1, isLoading: false, numberFactAlert: "1 is zero."))
  }

  @Test func nonExhaustiveStoresStillCatchAWrongAssertion() async {
    await withKnownIssue {
      let store = TestStore(initialState: Counter.State()) { Counter() }
      store.exhaustivity = .off
      await store.send(.incrementButtonTapped) { $0.count = 5 }
    } matching: { issue in
      message(of: issue).hasPrefix("A state change does not match expectation: …")
    }
  }

  @Test func skippedActionsNeedNoAssertion() async {
    let store = counterWithZeroFacts()
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.finish()
    await store.skipReceivedActions()
    #expect(store.state.numberFactAlert == "0 is zero.")
  }

  /// A counter whose fact client answers at once: "<n> is zero."
  func counterWithZeroFacts() -> TestStoreOf<Counter> {
    TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is zero." }
    }
  }
}
