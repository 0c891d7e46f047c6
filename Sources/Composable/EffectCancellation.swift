import Foundation
import Synchronization

extension Effect {
  /// Marks this effect's work with `id`, so that `Effect.cancel(id:)` can stop it while it runs.
  ///
  /// With `cancelInFlight`, work already running under the same id is cancelled first: only the
  /// newest runs (a search field's requests, a retried load).
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    guard !operations.isEmpty else { return self }
    let id = EffectID(id)
    let effect = self
    return Self(operations: [
      .run { send in
        guard let effects = CancellableEffects.current else { return await effect.execute(send) }
        await effects.run(id, cancelInFlight: cancelInFlight) { await effect.execute(send) }
      }
    ])
  }

  /// Cancels the running work marked with `id` by `cancellable(id:)`; actions it would still
  /// send are dropped.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(operations: [.cancel(EffectID(id))])
  }
}

/// An effect's cancellation id, of any hashable type.
public struct EffectID: Hashable, @unchecked Sendable {
  // Unchecked: made only from `Hashable & Sendable` values (and key paths, which are immutable).
  let base: AnyHashable

  init(_ base: some Hashable & Sendable) {
    // The runtime's own ids (a presented child's, a stack element's) arrive here already made.
    self.base = (base as? EffectID)?.base ?? AnyHashable(base)
  }
  init(unchecked base: AnyHashable) { self.base = base }
}

/// The cancellable work running in one store, by id. Each store has its own (the server runs a
/// store per request, so one user's ids never reach another's work); effects find it through a
/// task-local value the store sets while it runs them.
final class CancellableEffects: Sendable {
  @TaskLocal static var current: CancellableEffects?

  private struct Running {
    var tasks: [EffectID: [UInt64: Task<Void, Never>?]] = [:]
    var next: UInt64 = 0
  }

  private let running = Mutex(Running())
  private let executor: (any TaskExecutor)?

  init(executor: (any TaskExecutor)?) {
    self.executor = executor
  }

  /// Runs `work` as a task that `cancel(id)` can cancel, and waits for it.
  func run(_ id: EffectID, cancelInFlight: Bool, _ work: @escaping @Sendable () async -> Void) async {
    if cancelInFlight { cancel(id) }
    // Registered before it starts: work that starts on this thread may cancel its own id before
    // it first suspends, which must reach it too.
    let key = running.withLock { running in
      running.next += 1
      running.tasks[id, default: [:]][running.next] = .some(nil)
      return running.next
    }
    let task = Task.immediate(executorPreference: executor) { await work() }
    let cancelled = running.withLock { running in
      guard running.tasks[id]?[key] != nil else { return true }
      running.tasks[id]![key] = task
      return false
    }
    if cancelled { task.cancel() }
    await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
    running.withLock { running in
      running.tasks[id]?[key] = nil
      if running.tasks[id]?.isEmpty == true { running.tasks[id] = nil }
    }
  }

  /// Cancels every task running under `id`.
  func cancel(_ id: EffectID) {
    let tasks = running.withLock { $0.tasks.removeValue(forKey: id) } ?? [:]
    for case let task? in tasks.values { task.cancel() }
  }
}
