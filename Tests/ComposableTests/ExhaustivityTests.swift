import Clocks
import ComposableTesting
import ConcurrencyExtras
import Dependencies
import IssueReporting
import Testing

/// Collects what is reported inside it, instead of failing the test: how a test reads the known
/// issues a non-exhaustive `TestStore` reports.
final class CollectedIssues: IssueReporter {
  let messages = LockIsolated<[String]>([])

  func reportIssue(_ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    let text = message() ?? ""
    messages.withValue { $0.append(text) }
  }

  func reportIssue(_ error: any Error, _ message: @autoclosure () -> String?, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    let text = message() ?? "\(error)"
    messages.withValue { $0.append(text) }
  }

  func expectIssue(_ message: @autoclosure () -> String?, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {}
  func expectIssue(_ error: any Error, _ message: @autoclosure () -> String?, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {}
}

/// The TestStore's exhaustivity, as TCA documents it: exhaustive by default; `.off` asserts only
/// what a test says (an integration test of a large feature); `.off(showSkippedAssertions: true)`
/// also shows, as known issues, what was left out; `withExhaustivity` for a part of a test;
/// `skipInFlightEffects`; and a dependency changed between steps.
struct ExhaustivityTests {
  func counter(facts: @escaping @Sendable (Int) async throws -> String = { "\($0) is a number." }) -> TestStoreOf<Counter> {
    TestStore(initialState: Counter.State()) { Counter() } withDependencies: { $0.numberFact.fetch = facts }
  }

  @Test func offAssertsOnlyWhatTheTestSays() async {
    let store = counter()
    store.exhaustivity = .off
    await store.send(.incrementButtonTapped)  // count changed: not asserted, not a failure
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    // The fact's arrival is not received: the next send skips it.
    await store.send(.incrementButtonTapped) { $0.count = 2 }
    #expect(store.state.numberFactAlert == "1 is a number.")
  }

  @Test func showSkippedAssertionsReportsWhatWasLeftOutAsKnownIssues() async {
    let issues = CollectedIssues()
    await withIssueReporters([issues]) {
      let store = counter()
      store.exhaustivity = .off(showSkippedAssertions: true)
      await store.send(.incrementButtonTapped)
      await store.send(.numberFactButtonTapped) { $0.isLoading = true }
      await store.send(.incrementButtonTapped) { $0.count = 2 }
    }
    let messages = issues.messages.value
    // The third send's closure says all its action changed: nothing skipped there.
    #expect(messages.count == 2, "\(messages)")
    #expect(messages.allSatisfy { $0.hasPrefix("Skipped assertions.") })
    guard messages.count == 2 else { return }
    #expect(messages[0].contains("−   count: 0,") && messages[0].contains("+   count: 1,"), "the first send's change")
    #expect(messages[1].contains("1 received action skipped") && messages[1].contains("numberFactResponse(\"1 is a number.\")"))
  }

  @Test func withExhaustivityTurnsItOffForOnePartOnly() async {
    let store = counter()
    await store.withExhaustivity(.off) {
      await store.send(.numberFactButtonTapped)
      await store.send(.incrementButtonTapped)
    }
    #expect(store.exhaustivity == .on)
    await store.send(.factAlertDismissed) { $0.numberFactAlert = nil }
    await store.send(.decrementButtonTapped) { $0.count = 0 }
  }

  /// Where TCA's TestStore fails: after `withExhaustivity`, the test is exhaustive again.
  @Test func afterWithExhaustivityAnUnassertedChangeFails() async {
    await withKnownIssue {
      let store = counter()
      store.withExhaustivity(.off) {}
      await store.send(.incrementButtonTapped)
    } matching: { issue in
      message(of: issue).hasPrefix("A state change does not match expectation")
    }
  }

  @Test func skipInFlightEffectsCancelsThemAndSaysSo() async {
    let issues = CollectedIssues()
    await withIssueReporters([issues]) {
      let store = TestStore(initialState: Session.State.signedIn(SignedIn.State())) { Session() } withDependencies: {
        $0.continuousClock = TestClock()
      }
      await store.send(.signedIn(.startTimerTapped))
      await store.skipInFlightEffects()
    }
    let messages = issues.messages.value
    #expect(messages.count == 1 && messages[0].hasPrefix("Skipped assertions.\n\n1 in-flight effect cancelled, originating from: ComposableTests/ExhaustivityTests.swift:"))
  }

  /// Where TCA's TestStore fails: nothing to skip, strictly.
  @Test func skippingEffectsWhenNoneRunFails() async {
    await withKnownIssue {
      await counter().skipInFlightEffects()
    } matching: { issue in
      message(of: issue) == "There were no in-flight effects to skip."
    }
    await counter().skipInFlightEffects(strict: false)
  }

  /// A dependency changed between steps: the API is down, then back.
  @Test func aDependencyChangedMidTestIsWhatTheNextActionSees() async {
    struct Down: Error {}
    let store = counter(facts: { _ in throw Down() })
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(.numberFactFailed) {
      $0.isLoading = false
      $0.numberFactAlert = "Could not load a number fact."
    }
    store.dependencies.numberFact.fetch = { "\($0) is back." }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await store.receive(.numberFactResponse("0 is back.")) {
      $0.isLoading = false
      $0.numberFactAlert = "0 is back."
    }
  }
}
