import Dependencies
import Foundation
import IssueReporting

/// Holds a feature's state and runs its reducer: an action, then every action its effects send
/// back, until all work is done.
///
/// The server makes one store per request: load state, `send`, read `state`, save.
public final class Store<State: Sendable, Action: Sendable>: @unchecked Sendable {
  /// How a `send` ended.
  public enum Completion: Sendable, Equatable {
    /// Every effect finished.
    case finished
    /// The deadline passed first; the remaining effects were cancelled.
    case timedOut
  }

  private let lock = NSLock()
  private var _state: State
  private let reduce: (inout State, Action) -> Effect<Action>
  private let dependencies: DependencyValues

  /// - Parameters:
  ///   - prepareDependencies: overrides for the dependencies the reducer and its effects see.
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    self.init(
      initialState: initialState, reducer: reducer,
      dependencies: withDependencies(prepareDependencies) { DependencyValues._current }
    )
  }

  /// A store whose reducer and effects see exactly `dependencies`, resolved beforehand (the server
  /// resolves them once at start-up rather than on every request).
  public init<R: Reducer>(
    initialState: State, reducer: R, dependencies: DependencyValues
  ) where R.State == State, R.Action == Action {
    self._state = initialState
    // The body is built once for every action the store runs (see `PreparedReducer`).
    let prepared = withDependencies { $0 = dependencies } operation: { PreparedReducer(unchecked: reducer) }
    self.reduce = prepared.reduce(into:action:)
    self.dependencies = dependencies
  }

  /// A store running a reducer prepared beforehand (the server prepares its feature once); its
  /// effects see exactly `dependencies`.
  public init(initialState: State, reducer: PreparedReducer<State, Action>, dependencies: DependencyValues) {
    self._state = initialState
    self.reduce = reducer.reduce(into:action:)
    self.dependencies = dependencies
  }

  /// The current state.
  public var state: State {
    lock.withLock { _state }
  }

  /// Sends `action` and returns when it and every effect it started, transitively, are done, or
  /// when `deadline` has passed: then the remaining effects are cancelled, the overrun is reported
  /// and `.timedOut` is returned without waiting for them.
  @discardableResult
  public func send(
    _ action: Action,
    deadline: Duration = .seconds(5),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async -> Completion {
    // The action itself runs here; only the work it starts needs a task. That task starts on this
    // thread and runs until it first suspends: work kept in memory (most effects) finishes there
    // without a task switch, and only work that suspends is waited for, against the deadline.
    let effect = apply(action)
    guard !effect.operations.isEmpty else { return .finished }
    let done = Once<Completion>()
    let work = Task.immediate {
      await effect.execute(Send { await self.process($0) })
      done.resume(.finished)
    }
    if let finished = done.value { return finished }
    var timer: UInt64 = 0
    let completion: Completion = await withCheckedContinuation { continuation in
      done.wait(continuation)
      timer = Deadlines.shared.add(after: deadline) {
        work.cancel()
        done.resume(.timedOut)
      }
    }
    Deadlines.shared.remove(timer)
    if completion == .timedOut {
      reportIssue(
        """
        Effects started by \(action) were still running after \(deadline) and were cancelled.
        """,
        fileID: fileID, filePath: filePath, line: line, column: column
      )
    }
    return completion
  }

  private func process(_ action: Action) async {
    await apply(action).execute(Send { await self.process($0) })
  }

  /// Runs the reducer on the state, with the store's dependencies.
  private func apply(_ action: Action) -> Effect<Action> {
    withDependencies { $0 = dependencies } operation: {
      lock.withLock { reduce(&_state, action) }
    }
  }
}

/// The first of several outcomes (whichever task gets there first), handed to a continuation
/// that may start waiting before or after it is known.
private final class Once<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Value?
  private var continuation: CheckedContinuation<Value, Never>?

  /// The outcome, once known.
  var value: Value? { lock.withLock { result } }

  func resume(_ value: Value) {
    lock.withLock {
      guard result == nil else { return }
      result = value
      continuation?.resume(returning: value)
      continuation = nil
    }
  }

  func wait(_ continuation: CheckedContinuation<Value, Never>) {
    lock.withLock {
      if let result {
        continuation.resume(returning: result)
      } else {
        self.continuation = continuation
      }
    }
  }
}
