import Composable
import Dependencies
import Foundation

/// The live half of a `TestStore`: applies actions, runs effects as tasks and records every
/// action they send back, with the state before and after it.
final class TestRuntime<State: Sendable, Action: Sendable>: @unchecked Sendable {
  struct Step {
    let action: Action
    let before: State
    let after: State
  }

  private let lock = NSLock()
  private var _state: State
  private let reduce: (inout State, Action) -> Effect<Action>
  private var _dependencies: DependencyValues
  private var received: [Step] = []
  private var inFlight: [Int: (task: Task<Void, Never>, origin: Location)] = [:]
  private var nextEffectID = 0

  init(state: State, reduce: @escaping (inout State, Action) -> Effect<Action>, dependencies: DependencyValues) {
    self._state = state
    self.reduce = reduce
    self._dependencies = dependencies
  }

  var state: State { lock.withLock { _state } }
  var dependencies: DependencyValues {
    get { lock.withLock { _dependencies } }
    set { lock.withLock { _dependencies = newValue } }
  }
  var receivedActions: [Step] { lock.withLock { received } }
  var inFlightCount: Int { lock.withLock { inFlight.count } }

  /// Applies an action sent by the test and starts its effects.
  func send(_ action: Action, from origin: Location) -> Step {
    lock.withLock { apply(action, from: origin) }
  }

  /// Takes the oldest received action; with `skippingUnmatched`, the oldest that matches, dropping
  /// those before it. Also says how many effects are still running, read at the same moment.
  func takeReceived(skippingUnmatched: Bool, where matches: (Action) -> Bool) -> (Step?, inFlight: Int) {
    lock.withLock {
      if skippingUnmatched {
        guard let index = received.firstIndex(where: { matches($0.action) }) else {
          return (nil, inFlight.count)
        }
        received.removeFirst(index)
      }
      return (received.isEmpty ? nil : received.removeFirst(), inFlight.count)
    }
  }

  func drainReceived() -> [Step] {
    lock.withLock {
      defer { received.removeAll() }
      return received
    }
  }

  /// Cancels every running effect and returns where each was started.
  func cancelEffects() -> [Location] {
    let cancelled = lock.withLock {
      defer { inFlight.removeAll() }
      return inFlight.sorted { $0.key < $1.key }.map(\.value)
    }
    for effect in cancelled { effect.task.cancel() }
    return cancelled.map(\.origin)
  }

  /// Call with the lock held.
  private func apply(_ action: Action, from origin: Location) -> Step {
    let before = _state
    let effect = withDependencies { $0 = _dependencies } operation: { reduce(&_state, action) }
    let step = Step(action: action, before: before, after: _state)
    guard !effect.operations.isEmpty else { return step }
    let id = nextEffectID
    nextEffectID += 1
    let task = Task {
      await effect.execute(Send { action in self.receive(action, from: origin) })
      self.lock.withLock { _ = self.inFlight.removeValue(forKey: id) }
    }
    inFlight[id] = (task, origin)
    return step
  }

  private func receive(_ action: Action, from origin: Location) {
    lock.withLock { received.append(apply(action, from: origin)) }
  }
}
