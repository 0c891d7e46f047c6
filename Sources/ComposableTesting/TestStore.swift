import CasePaths
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
  case off
}

/// Tests a reducer the way TCA's `TestStore` does: send an action and describe how state changes,
/// receive the actions effects send back, and finish every effect.
///
/// Failures are reported through IssueReporting, so they fail Swift Testing and XCTest tests.
public final class TestStore<State: Equatable & Sendable, Action: Sendable>: @unchecked Sendable {
  /// How strict this store is; `.on` unless set otherwise.
  public var exhaustivity: Exhaustivity = .on
  /// How long `receive` and `finish` wait for effects before failing.
  public var timeout: Duration = .seconds(1)

  let runtime: TestRuntime<State, Action>
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
    self.runtime = TestRuntime(
      state: withDependencies { $0 = dependencies } operation: { initialState() },
      reduce: reducer.reduce(into:action:),
      dependencies: dependencies
    )
    self.lastStep = Location(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The store's current state, including changes made by actions not yet received.
  public var state: State { runtime.state }

  /// The dependencies the reducer and the effects it starts from now on see; change them between
  /// steps, as when a server comes back up.
  public var dependencies: DependencyValues {
    get { runtime.dependencies }
    set { runtime.dependencies = newValue }
  }

  /// Sends an action, then checks the state change that `assert` describes: it receives the state
  /// before the action and must turn it into the state after it.
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
    let pending = runtime.receivedActions
    if exhaustivity == .on, !pending.isEmpty {
      location.report(
        """
        Must handle \(plural(pending.count, "received action")) before sending an action: …

          Unhandled actions:
        \(list(pending.map(\.action)))
        """
      )
    }
    let step = runtime.send(action, from: location)
    expect(step, matches: assert, at: location)
    await settle()
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
    await Task.yield()
    _ = runtime.drainReceived()
  }

  /// Waits for every in-flight effect to finish; fails, and cancels them, if some are still
  /// running after `timeout`.
  public func finish(
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    let clock = ContinuousClock()
    let start = clock.now
    while runtime.inFlightCount > 0 {
      guard clock.now - start < timeout else {
        let unfinished = runtime.cancelEffects()
        location.report(
          """
          Expected effects to finish, but \(plural(unfinished.count, "effect")) still running \
          after \(timeout): they have been cancelled.

          \(unfinishedEffectMessage)
          """
        )
        return
      }
      try? await Task.sleep(for: .milliseconds(1))
    }
  }

  deinit {
    let unfinished = runtime.cancelEffects()
    let unreceived = runtime.drainReceived()
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

  private var unfinishedEffectMessage: String {
    """
    An effect returned for this action is still running. It must complete before the end of the \
    test. …

    Make sure every effect this action returns ends, or await "store.finish()" and receive what \
    it sends; an effect that never ends should be cancelled by a later action.
    """
  }

  /// Gives running effects a moment to send their next action or to end, so that an effect which
  /// has just sent its last action is not mistaken for one still running when the test ends.
  func settle() async {
    let clock = ContinuousClock()
    let start = clock.now
    while runtime.inFlightCount > 0, runtime.receivedActions.isEmpty, clock.now - start < .milliseconds(20) {
      await Task.yield()
    }
  }

  func expect(
    _ step: TestRuntime<State, Action>.Step,
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
