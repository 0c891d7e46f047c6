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

  /// What a store tells whoever watches it (the `TestStore`) about each action it runs: the
  /// action, the state before and after it, and whether an effect sent it.
  package typealias Observer = @Sendable (_ action: Action, _ before: State, _ after: State, _ fromEffect: Bool) -> Void

  private let lock = NSLock()
  private var _state: State
  private var _dependencies: DependencyValues
  private let reduce: (inout State, Action) -> Effect<Action>
  private let clock: (any Clock<Duration>)?
  private let executor: (any TaskExecutor)?
  private let cancellables: CancellableEffects
  private let observer: Observer?

  /// - Parameters:
  ///   - prepareDependencies: overrides for the dependencies the reducer and its effects see.
  ///   Deadlines are measured on the `continuousClock` dependency.
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) where R.State == State, R.Action == Action {
    let dependencies = withDependencies(prepareDependencies) { DependencyValues._current }
    let prepared = withDependencies { $0 = dependencies } operation: { PreparedReducer(unchecked: reducer) }
    self.init(
      initialState: initialState, reducer: prepared, dependencies: dependencies,
      clock: Self.deadlineClock(dependencies), executor: nil, observer: nil
    )
  }

  /// The clock a store's deadlines are measured on: the `continuousClock` dependency when one is
  /// given (a test clock), else the real clock and its shared watcher.
  package static func deadlineClock(_ dependencies: DependencyValues) -> (any Clock<Duration>)? {
    let clock = dependencies.continuousClock
    return clock is ContinuousClock || clock is UnimplementedClock<Duration> ? nil : clock
  }

  /// A store whose reducer and effects see exactly `dependencies`, resolved beforehand (the server
  /// resolves them once at start-up rather than on every request).
  public convenience init<R: Reducer>(
    initialState: State, reducer: R, dependencies: DependencyValues
  ) where R.State == State, R.Action == Action {
    // The body is built once for every action the store runs (see `PreparedReducer`).
    let prepared = withDependencies { $0 = dependencies } operation: { PreparedReducer(unchecked: reducer) }
    self.init(initialState: initialState, reducer: prepared, dependencies: dependencies)
  }

  /// A store running a reducer prepared beforehand (the server prepares its feature once); its
  /// effects see exactly `dependencies`.
  public convenience init(initialState: State, reducer: PreparedReducer<State, Action>, dependencies: DependencyValues) {
    self.init(initialState: initialState, reducer: reducer, dependencies: dependencies, clock: nil, executor: nil, observer: nil)
  }

  /// - Parameters:
  ///   - clock: what deadlines are measured on; `nil` is the real clock, watched by one task for
  ///     every store of the process.
  ///   - executor: where effects continue once they first suspend; `nil` is the global pool.
  package init(
    initialState: State, reducer: PreparedReducer<State, Action>, dependencies: DependencyValues,
    clock: (any Clock<Duration>)?, executor: (any TaskExecutor)?, observer: Observer?
  ) {
    self._state = initialState
    self._dependencies = dependencies
    self.reduce = reducer.reduce(into:action:)
    self.clock = clock
    self.executor = executor
    self.cancellables = CancellableEffects(executor: executor)
    self.observer = observer
  }

  /// The current state.
  public var state: State {
    lock.withLock { _state }
  }

  /// The dependencies the reducer, and the effects it starts from now on, see.
  package var dependencies: DependencyValues {
    get { lock.withLock { _dependencies } }
    set { lock.withLock { _dependencies = newValue } }
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
    guard let work = start(action, deadline: deadline) else { return .finished }
    let completion = await work.completion()
    if completion == .timedOut {
      reportIssue(Self.overrun(of: action, after: deadline), fileID: fileID, filePath: filePath, line: line, column: column)
    }
    return completion
  }

  /// What is reported when the deadline cancels an action's work, here and in the test store.
  package static func overrun(of action: Action, after deadline: Duration) -> String {
    "Effects started by \(action) were still running after \(deadline) and were cancelled."
  }

  /// Runs `action` and starts the work it returns; `nil` when it returns none.
  ///
  /// The work starts on this thread and runs until it first suspends: work kept in memory (most
  /// effects) finishes there without a task switch, and only work that suspends is left running,
  /// against the deadline, which is armed only then.
  package func start(_ action: Action, deadline: Duration) -> Work? {
    let effect = apply(action, fromEffect: false)
    guard !effect.operations.isEmpty else { return nil }
    let done = Once<Completion>()
    let task = Task.immediate(executorPreference: executor) { [cancellables] in
      await CancellableEffects.$current.withValue(cancellables) {
        await effect.execute(Send { await self.process($0) })
      }
      done.resume(.finished)
    }
    let work = Work(task: task, done: done)
    guard done.value == nil else { return work }
    let timer = armDeadline(after: deadline) {
      // The outcome first: cancelled work ends at once, and must not be taken as finished.
      done.resume(.timedOut)
      task.cancel()
    }
    done.whenKnown { _ in timer.disarm() }
    return work
  }

  /// The work an action started, until it finishes or its deadline passes.
  package final class Work: Sendable {
    let task: Task<Void, Never>
    let done: Once<Completion>

    init(task: Task<Void, Never>, done: Once<Completion>) {
      self.task = task
      self.done = done
    }

    /// How it ended, once known.
    package var outcome: Completion? { done.value }

    /// Waits until the work has finished or its deadline has passed. Work that finished before
    /// it is asked (most, see `start`) returns without suspending: a continuation resumed at once
    /// still gives the task back to its executor's queue.
    package func completion() async -> Completion {
      if let outcome { return outcome }
      return await withCheckedContinuation { done.wait($0) }
    }

    /// Calls `callback` once the work has finished or its deadline has passed.
    package func whenComplete(_ callback: @escaping @Sendable (Completion) -> Void) {
      done.whenKnown(callback)
    }

    /// Stops the work.
    package func cancel() {
      task.cancel()
    }
  }

  private func armDeadline(after deadline: Duration, _ expire: @escaping @Sendable () -> Void) -> DeadlineTimer {
    guard let clock else { return .shared(Deadlines.shared.add(after: deadline, expire)) }
    return .task(
      Task(executorPreference: executor) {
        do { try await clock.sleep(for: deadline) } catch { return }
        expire()
      }
    )
  }

  private func process(_ action: Action) async {
    await apply(action, fromEffect: true).execute(Send { await self.process($0) })
  }

  /// Runs the reducer on the state, with the store's dependencies.
  private func apply(_ action: Action, fromEffect: Bool) -> Effect<Action> {
    lock.withLock {
      // The store's dependencies as they are, not merged into the caller's (`withDependencies`
      // would read the caller's first, to be replaced whole).
      guard let observer else {
        return DependencyValues.$_current.withValue(_dependencies) { reduce(&_state, action) }
      }
      let before = _state
      let effect = DependencyValues.$_current.withValue(_dependencies) { reduce(&_state, action) }
      observer(action, before, _state, fromEffect)
      return effect
    }
  }
}

/// A pending deadline: on the process's shared watcher, or a task sleeping on an injected clock.
private enum DeadlineTimer: Sendable {
  case shared(UInt64)
  case task(Task<Void, Never>)

  func disarm() {
    switch self {
    case let .shared(id): Deadlines.shared.remove(id)
    case let .task(task): task.cancel()
    }
  }
}

/// The first of several outcomes (whichever task gets there first), handed to every waiter,
/// whether it starts waiting before or after the outcome is known.
package final class Once<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Value?
  private var waiters: [CheckedContinuation<Value, Never>] = []
  private var callbacks: [@Sendable (Value) -> Void] = []

  /// The outcome, once known.
  var value: Value? { lock.withLock { result } }

  func resume(_ value: Value) {
    let (waiters, callbacks) = lock.withLock {
      guard result == nil else { return ([CheckedContinuation<Value, Never>](), [@Sendable (Value) -> Void]()) }
      result = value
      defer { (self.waiters, self.callbacks) = ([], []) }
      return (self.waiters, self.callbacks)
    }
    for waiter in waiters { waiter.resume(returning: value) }
    for callback in callbacks { callback(value) }
  }

  func wait(_ continuation: CheckedContinuation<Value, Never>) {
    let known = lock.withLock {
      if result == nil { waiters.append(continuation) }
      return result
    }
    if let known { continuation.resume(returning: known) }
  }

  /// Calls `callback` with the outcome: now if it is known, else when it is.
  func whenKnown(_ callback: @escaping @Sendable (Value) -> Void) {
    let known = lock.withLock {
      if result == nil { callbacks.append(callback) }
      return result
    }
    if let known { callback(known) }
  }
}
