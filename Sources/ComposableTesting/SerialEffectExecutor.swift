import Dispatch
import Foundation

/// Where a `TestStore`'s effects continue once they first suspend: one serial queue, which the
/// test store can wait to go idle. "Idle" means every effect has finished or is suspended on
/// something outside it (a test clock not yet advanced, an unfinished fake); then whatever the
/// effects could do has been done, and the test's next step sees all of it. This replaces
/// polling and settle sleeps, and is what makes a test's outcome the same on every run.
final class SerialEffectExecutor: TaskExecutor, @unchecked Sendable {
  // Unchecked: `pending` and `idleWaiters` are guarded by `lock`.
  private let queue = DispatchQueue(label: "ComposableTesting.TestStore.effects")
  private let lock = NSLock()
  private var pending = 0
  private var idleWaiters: [CheckedContinuation<Void, Never>] = []

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    lock.withLock { pending += 1 }
    queue.async {
      job.runSynchronously(on: self.asUnownedTaskExecutor())
      self.jobEnded()
    }
  }

  /// Returns once no job is queued or running.
  func idle() async {
    await withCheckedContinuation { continuation in
      let isIdle = lock.withLock {
        if pending > 0 { idleWaiters.append(continuation) }
        return pending == 0
      }
      if isIdle { continuation.resume() }
    }
  }

  private func jobEnded() {
    let waiters = lock.withLock {
      pending -= 1
      guard pending == 0 else { return [CheckedContinuation<Void, Never>]() }
      defer { idleWaiters = [] }
      return idleWaiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
