import CasePaths
import Clocks
import Composable
import CustomDump
import Dependencies
import IssueReporting

/// Whether a `TestStore` demands that a test describe everything.
public enum Exhaustivity: Sendable, Equatable {
  /// Every state change asserted, every effect action received, every effect finished.
  case on
  /// Assert only what matters: assertion closures see the state *after* the action (assign
  /// absolute values), unasserted received actions are skipped, unfinished effects are cancelled.
  /// With `showSkippedAssertions`, what was skipped is reported as a known issue (Swift
  /// Testing's `withKnownIssue`), which does not fail the test but says what it left out.
  case off(showSkippedAssertions: Bool)

  /// `.off` without showing what was skipped.
  public static let off = Self.off(showSkippedAssertions: false)
}

/// Tests a reducer the way TCA's `TestStore` does: send an action and describe how state changes,
/// receive the actions effects send back, and finish every effect.
///
/// It drives the same `Store` the server runs: actions are reduced, and their effects started and
/// cancelled, by the same code, with the same deadline, measured on the `continuousClock`
/// dependency (a `TestClock` in tests that wait, so that they never wait in real time). Effects
/// continue on a serial executor that the test store waits to go idle between steps, instead of
/// polling or sleeping. Failures are reported through IssueReporting, so they fail Swift Testing
/// and XCTest tests.
public final class TestStore<State: Equatable & Sendable, Action: Sendable>: @unchecked Sendable {
  /// How strict this store is; `.on` unless set otherwise.
  public var exhaustivity: Exhaustivity = .on
  /// How long `receive` and `finish` wait, at most, for effects still waiting on something the
  /// test does not control, before they fail. A passing test whose effects wait only on its
  /// clocks never waits for it; 10 s, since a full test run on two cores was seen to hold an
  /// effect's thread past 1 s (`IfCaseLetTests`, a timer's second tick).
  public var timeout: Duration = .seconds(10)
  /// How long the effects of each action may run, as in the server; past it they are cancelled
  /// and the overrun is reported.
  public var deadline: Duration = .seconds(5)

  let store: Store<State, Action>
  let log: TestLog<State, Action>
  let executor: SerialEffectExecutor
  /// The work of every action sent so far, with where it was sent, until it is finished.
  private var running: [(work: Store<State, Action>.Work, origin: Location, action: Action)] = []
  var lastStep: Location

  public init<R: Reducer>(
    initialState: @autoclosure () -> State,
    @ReducerBuilder<State, Action> reducer: () -> R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where R.State == State, R.Action == Action {
    let dependencies = withDependencies(prepareDependencies) { DependencyValues._current }
    let reducer = reducer()
    let log = TestLog<State, Action>()
    let executor = SerialEffectExecutor()
    self.store = withDependencies { $0 = dependencies } operation: {
      Store(
        initialState: initialState(), reducer: PreparedReducer(unchecked: reducer), dependencies: dependencies,
        clock: Store<State, Action>.deadlineClock(dependencies), executor: executor,
        observer: { log.record($0, before: $1, after: $2, fromEffect: $3) }
      )
    }
    self.log = log
    self.executor = executor
    self.lastStep = Location(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The store's current state, including changes made by actions not yet received.
  public var state: State { store.state }

  /// The dependencies the reducer and the effects it starts from now on see; change them between
  /// steps, as when a server comes back up.
  public var dependencies: DependencyValues {
    get { store.dependencies }
    set { store.dependencies = newValue }
  }

  /// Sends an action, then checks the state change that `assert` describes: it receives the state
  /// before the action and must turn it into the state after it. Returns once the action's
  /// effects have done all they can without the test's help.
  public func send(
    _ action: Action,
    assert: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    lastStep = location
    let pending = log.receivedActions
    if !pending.isEmpty {
      if exhaustivity == .on {
        location.report(
          """
          Must handle \(plural(pending.count, "received action")) before sending an action: …

            Unhandled actions:
          \(list(pending.map(\.action)))
          """
        )
      } else {
        // Not asserted, they are skipped: a later `receive` matches only what comes after this.
        _ = log.drainReceived()
        location.reportSkipped(skippedActions(pending.map(\.action)), if: exhaustivity)
      }
    }
    if let work = store.start(action, deadline: deadline) {
      let log = log
      work.whenComplete { _ in log.signal() }
      running.append((work, location, action))
    }
    if let step = log.takeSent() {
      expect(step, matches: assert, at: location)
    }
    await executor.idle()
    reportOverruns()
  }

  /// Reports, once, each action whose work its deadline cancelled, from the test's own task (a
  /// report from the timer's would escape the test's `withKnownIssue`).
  func reportOverruns() {
    for effect in running where effect.work.outcome == .timedOut {
      effect.origin.report(Store<State, Action>.overrun(of: effect.action, after: deadline))
    }
    running.removeAll { $0.work.outcome != nil }
  }

  /// Sends an action without an associated value, named by its case: `send(\.incrementButtonTapped)`.
  public func send(
    _ action: CaseKeyPath<Action, Void>,
    assert: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    await send(action(), assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Sends an action named by its case with its associated value: `send(\.categorySelected, .food)`.
  public func send<Value>(
    _ action: CaseKeyPath<Action, Value>,
    _ value: Value,
    assert: ((_ state: inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async where Action: CasePathable {
    await send(action(value), assert: assert, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Forgets the actions effects have sent so far without asserting on them.
  public func skipReceivedActions() async {
    await executor.idle()
    _ = log.drainReceived()
  }

  /// Cancels the effects still running, as TCA's does: a known issue that names where each was
  /// started (silent under `.off`). With `strict`, there must be some to cancel.
  public func skipInFlightEffects(
    strict: Bool = true,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    await executor.idle()
    reportOverruns()
    let cancelled = running.filter { $0.work.outcome == nil }
    guard !cancelled.isEmpty else {
      if strict { location.report("There were no in-flight effects to skip.") }
      return
    }
    _ = cancelUnfinished()
    let origins = cancelled.map { "\($0.origin.fileID):\($0.origin.line)" }.joined(separator: ", ")
    location.reportSkipped(
      "\(plural(cancelled.count, "in-flight effect")) cancelled, originating from: \(origins)\n\n\(list(cancelled.map(\.action)))",
      if: exhaustivity == .on ? .off(showSkippedAssertions: true) : exhaustivity
    )
  }

  /// Runs `operation` with this store's exhaustivity set to `exhaustivity`, then sets it back.
  public func withExhaustivity<R>(_ exhaustivity: Exhaustivity, operation: () throws -> R) rethrows -> R {
    let saved = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = saved }
    return try operation()
  }

  /// Runs `operation` with this store's exhaustivity set to `exhaustivity`, then sets it back.
  public func withExhaustivity<R>(
    _ exhaustivity: Exhaustivity, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
  ) async rethrows -> R {
    let saved = self.exhaustivity
    self.exhaustivity = exhaustivity
    defer { self.exhaustivity = saved }
    return try await operation()
  }

  func skippedActions(_ actions: [Action]) -> String {
    "\(plural(actions.count, "received action")) skipped:\n\n\(list(actions))"
  }

  /// Waits for every effect to finish; fails, and cancels them, if some are still running once
  /// they have gone idle and `timeout` has passed without news from them.
  public func finish(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    defer { reportOverruns() }
    while true {
      await executor.idle()
      let events = log.eventCount
      if unfinished.isEmpty { return }
      guard await waitForEvent(after: events) else {
        let unfinished = cancelUnfinished()
        location.report(
          """
          Expected effects to finish, but \(plural(unfinished.count, "effect")) still running \
          after \(timeout): they have been cancelled.

          \(unfinishedEffectMessage)
          """
        )
        return
      }
    }
  }

  deinit {
    reportOverruns()
    let unfinished = cancelUnfinished()
    let unreceived = log.drainReceived()
    guard exhaustivity == .on else { return }
    if !unreceived.isEmpty {
      lastStep.report(
        """
        The store received \(plural(unreceived.count, "unexpected action")) after this one: …

          Unhandled actions:
        \(list(unreceived.map(\.action)))
        """
      )
    }
    for origin in unfinished {
      origin.report(unfinishedEffectMessage)
    }
  }

  /// Where each unfinished effect was started.
  var unfinished: [Location] {
    running.filter { $0.work.outcome == nil }.map(\.origin)
  }

  /// Cancels every unfinished effect and returns where each was started.
  private func cancelUnfinished() -> [Location] {
    let unfinished = running.filter { $0.work.outcome == nil }
    for effect in unfinished { effect.work.cancel() }
    running = []
    return unfinished.map(\.origin)
  }

  /// Waits for the store's next event after the `count`th; `false` when `timeout` passed first.
  func waitForEvent(after count: Int) async -> Bool {
    let (log, timeout) = (log, timeout)
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        await log.event(after: count)
        return !Task.isCancelled
      }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  private var unfinishedEffectMessage: String {
    """
    An effect returned for this action is still running. It must complete before the end of the \
    test. …

    Make sure every effect this action returns ends, or await "store.finish()" and receive what \
    it sends; an effect that never ends should be cancelled by a later action.
    """
  }

  func expect(
    _ step: TestLog<State, Action>.Step,
    matches assert: ((inout State) throws -> Void)?,
    at location: Location
  ) {
    var expected = exhaustivity == .on ? step.before : step.after
    do {
      try assert?(&expected)
    } catch {
      location.report("Threw error: \(error)")
      return
    }
    if expected != step.after {
      let difference = diff(expected, step.after, format: minusPlus).map { $0.indented(by: 4) } ?? ""
      location.report(
        "A state change does not match expectation: …\n\n\(difference)\n\n(Expected: −, Actual: +)"
      )
    } else if case .off(showSkippedAssertions: true) = exhaustivity {
      // What an exhaustive test would have had to say: the closure once more, on the state
      // before the action. (It runs twice: it must not have effects of its own.)
      var exhaustive = step.before
      try? assert?(&exhaustive)
      if exhaustive != step.after {
        let difference = diff(exhaustive, step.after, format: minusPlus).map { $0.indented(by: 4) } ?? ""
        location.reportSkipped(
          "A state change does not match expectation: …\n\n\(difference)\n\n(Expected: −, Actual: +)", if: exhaustivity
        )
      }
    } else if exhaustivity == .on, assert != nil, step.before == step.after {
      location.report(
        """
        Expected state to change, but no change occurred.

        The trailing closure made no observable modifications to state. If no change to state is \
        expected, omit the trailing closure.
        """
      )
    }
  }
}

/// A `TestStore` for a feature: `TestStoreOf<Counter>`.
public typealias TestStoreOf<R: Reducer> = TestStore<R.State, R.Action>
where R.State: Equatable & Sendable
