import CasePaths
import Clocks
import Composable
import Dependencies
import ComposableTesting
import Testing

/// Records which steps its effects reported, to show how effect operators order work.
private struct Steps: Reducer {
  typealias State = [Int]

  @CasePathable
  enum Action: Equatable, Sendable {
    case mergeTapped
    case concatenateTapped
    case mappedTapped
    case step(Int)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .mergeTapped:
        return .merge(slow(1), .send(.step(2)))
      case .concatenateTapped:
        return .concatenate(slow(1), .send(.step(2)), .none)
      case .mappedTapped:
        return Effect<Int>.send(20).map { .step($0 + 1) }
      case let .step(number):
        state.append(number)
        return .none
      }
    }
  }

  @Dependency(\.continuousClock) var clock

  private func slow(_ number: Int) -> Effect<Action> {
    .run { send in
      try await clock.sleep(for: .milliseconds(30))
      await send(.step(number))
    }
  }
}

struct EffectTests {
  @Test func mergedEffectsRunAtTheSameTime() async {
    let clock = TestClock()
    let store = TestStore(initialState: [Int]()) { Steps() } withDependencies: { $0.continuousClock = clock }
    await store.send(.mergeTapped)
    await store.receive(.step(2)) { $0 = [2] }
    await clock.advanceOnceSleeping(by: .milliseconds(30))
    await store.receive(.step(1)) { $0 = [2, 1] }
  }

  @Test func concatenatedEffectsRunInOrder() async {
    let clock = TestClock()
    let store = TestStore(initialState: [Int]()) { Steps() } withDependencies: { $0.continuousClock = clock }
    await store.send(.concatenateTapped)
    await clock.advanceOnceSleeping(by: .milliseconds(30))
    await store.receive(.step(1)) { $0 = [1] }
    await store.receive(.step(2)) { $0 = [1, 2] }
  }

  @Test func mappedEffectsSendTransformedActions() async {
    let store = TestStore(initialState: [Int]()) { Steps() }
    await store.send(.mappedTapped)
    await store.receive(.step(21)) { $0 = [21] }
  }

  @Test func anUnhandledErrorInRunIsReported() async {
    struct Broken: Error {}
    await withKnownIssue {
      let store = Store(initialState: 0, reducer: Reduce<Int, Bool> { _, _ in
        .run { _ in throw Broken() }
      })
      await store.send(true)
    } matching: { issue in
      message(of: issue).contains("threw an unhandled error: Broken()")
    }
  }
}

struct StoreTests {
  @Test func sendReturnsOnceEveryEffectHasFinished() async {
    let store = Store(initialState: Counter.State(count: 7), reducer: Counter()) {
      $0.numberFact.fetch = { number in
        await Task.yield()
        return "\(number) is lucky."
      }
    }
    // A deadline far past the effect's work: on a machine busy with the rest of the suite (two
    // cores, bcrypt and fsyncs in other tests) a yielded task was seen to wait over 10 s for a thread.
    let completion = await store.send(.numberFactButtonTapped, deadline: .seconds(120))
    #expect(completion == .finished)
    #expect(store.state == Counter.State(count: 7, isLoading: false, numberFactAlert: "7 is lucky."))
  }

  /// A server builds its feature once and runs a store per request: each store's effects see that
  /// store's dependencies, not those in force when the feature was built.
  @Test func aPreparedReducerUsesTheRunningStoresDependencies() async {
    let prepared = withDependencies {
      $0.numberFact.fetch = { _ in "built" }
    } operation: {
      PreparedReducer(Counter())
    }
    for (count, fact) in [(7, "lucky"), (8, "even")] {
      let store = Store(initialState: Counter.State(count: count), reducer: prepared) {
        $0.numberFact.fetch = { number in "\(number) is \(fact)." }
      }
      await store.send(.incrementButtonTapped)
      #expect(await store.send(.numberFactButtonTapped) == .finished)
      #expect(store.state == Counter.State(count: count + 1, isLoading: false, numberFactAlert: "\(count + 1) is \(fact)."))
    }
  }

  @Test func effectsPastTheDeadlineAreCancelledAndReported() async {
    // An immediate clock: the deadline passes as soon as the effect waits.
    let store = Store(initialState: Counter.State(), reducer: Counter()) {
      $0.continuousClock = ImmediateClock()
      $0.numberFact.fetch = { _ in
        try await Task.sleep(for: .seconds(3600))
        return "never"
      }
    }
    await withKnownIssue {
      let completion = await store.send(.numberFactButtonTapped, deadline: .seconds(5))
      #expect(completion == .timedOut)
    } matching: { issue in
      message(of: issue).contains("were still running after 5.0 seconds and were cancelled.")
    }
    #expect(store.state == Counter.State(count: 0, isLoading: true, numberFactAlert: nil))
  }

  /// The test store runs the server's `Store`: an effect still running at the deadline is
  /// cancelled and reported in a test as on the server. (The test store used to be a runtime of
  /// its own, without deadlines: this effect would have run on and its fact arrived.)
  @Test func aTestStoreKeepsTheStoresDeadline() async {
    let clock = TestClock()
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.continuousClock = clock
      $0.numberFact.fetch = { number in
        try await clock.sleep(for: .seconds(10))
        return "\(number) is late."
      }
    }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    await withKnownIssue {
      await clock.advance(by: .seconds(5))
      await store.finish()
    } matching: { issue in
      message(of: issue).contains("were still running after 5.0 seconds and were cancelled.")
    }
    await clock.advance(by: .seconds(5))
    await store.finish()
    #expect(store.state.numberFactAlert == nil, "the late fact never arrives")
  }

  /// Work that does not suspend is done when `send` returns, in the server's store and in the test
  /// store alike: the fact is in the state before the test receives it.
  @Test func workThatDoesNotSuspendIsDoneWhenSendReturns() async {
    let store = TestStore(initialState: Counter.State()) {
      Counter()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0) is at hand." }
    }
    await store.send(.numberFactButtonTapped) { $0.isLoading = true }
    #expect(store.state.numberFactAlert == "0 is at hand.")
    await store.receive(\.numberFactResponse) {
      $0.isLoading = false
      $0.numberFactAlert = "0 is at hand."
    }
  }
}
