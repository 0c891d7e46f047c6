import Foundation

/// What a `TestStore`'s store reported: the step of the action the test sent, the actions its
/// effects sent since (each with the state before and after it), and a count of events (an
/// action run, an effect finished) that a waiting step can wait on.
final class TestLog<State: Sendable, Action: Sendable>: @unchecked Sendable {
  // Unchecked: everything is guarded by `lock`.
  struct Step {
    let action: Action
    let before: State
    let after: State
  }

  private let lock = NSLock()
  private var sent: Step?
  private var received: [Step] = []
  private var events = 0
  private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  private var nextWaiter = 0

  /// The store's observer.
  func record(_ action: Action, before: State, after: State, fromEffect: Bool) {
    let step = Step(action: action, before: before, after: after)
    lock.withLock {
      if fromEffect { received.append(step) } else { sent = step }
    }
    signal()
  }

  /// Something happened that a waiting step may be waiting for.
  func signal() {
    let waiters = lock.withLock {
      events += 1
      defer { self.waiters = [:] }
      return self.waiters.values
    }
    for waiter in waiters { waiter.resume() }
  }

  var eventCount: Int { lock.withLock { events } }

  /// Waits until an event after the `count`th has happened, or the waiting task is cancelled.
  func event(after count: Int) async {
    let id = lock.withLock {
      nextWaiter += 1
      return nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let happened = lock.withLock {
          if events > count || Task.isCancelled { return true }
          waiters[id] = continuation
          return false
        }
        if happened { continuation.resume() }
      }
    } onCancel: {
      lock.withLock { waiters.removeValue(forKey: id) }?.resume()
    }
  }

  func takeSent() -> Step? {
    lock.withLock {
      defer { sent = nil }
      return sent
    }
  }

  var receivedActions: [Step] { lock.withLock { received } }

  /// Takes the oldest received action; with `skippingUnmatched`, the oldest that matches, dropping
  /// those before it.
  /// The next received step, and those skipped before it (with `skippingUnmatched`, the ones
  /// that do not match).
  func takeReceived(skippingUnmatched: Bool, where matches: (Action) -> Bool) -> (Step, skipped: [Step])? {
    lock.withLock {
      var skipped: [Step] = []
      if skippingUnmatched {
        guard let index = received.firstIndex(where: { matches($0.action) }) else { return nil }
        skipped = Array(received.prefix(index))
        received.removeFirst(index)
      }
      return received.isEmpty ? nil : (received.removeFirst(), skipped)
    }
  }

  func drainReceived() -> [Step] {
    lock.withLock {
      defer { received.removeAll() }
      return received
    }
  }
}
