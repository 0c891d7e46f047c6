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
    self.reduce = withDependencies { $0 = dependencies } operation: { Self.prepared(reducer) }
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
    let work = Task { await self.process(action) }
    let timer = Task {
      try await Task.sleep(for: deadline)
      work.cancel()
    }
    let completion: Completion = await withCheckedContinuation { continuation in
      let once = Once(continuation)
      Task {
        await work.value
        once.resume(.finished)
      }
      Task {
        _ = try? await timer.value
        if !timer.isCancelled { once.resume(.timedOut) }
      }
    }
    timer.cancel()
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
    let effect = withDependencies { $0 = dependencies } operation: {
      lock.withLock { reduce(&_state, action) }
    }
    await effect.execute(Send { await self.process($0) })
  }

  /// The reducer's `body`, built once for every action the store runs rather than once per action
  /// (building a body instantiates its scopes' key paths, which dominated the reducer's cost); a
  /// reducer without a body runs itself. Dependencies are still read when an action runs, from the
  /// store's, since a `@Dependency` prefers the values current at the time it is read.
  private static func prepared<R: Reducer>(_ reducer: R) -> (inout State, Action) -> Effect<Action>
  where R.State == State, R.Action == Action {
    guard R.Body.self != Never.self, let body = reducer.body as? any Reducer<State, Action> else {
      return reducer.reduce(into:action:)
    }
    return { state, action in body.reduce(into: &state, action: action) }
  }
}

/// Resumes a continuation once, whichever of several tasks gets there first.
private final class Once<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Value, Never>?

  init(_ continuation: CheckedContinuation<Value, Never>) {
    self.continuation = continuation
  }

  func resume(_ value: Value) {
    lock.withLock {
      continuation?.resume(returning: value)
      continuation = nil
    }
  }

}
