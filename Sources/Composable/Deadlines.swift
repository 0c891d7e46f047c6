import Synchronization

/// Runs a closure when its deadline passes, unless it is removed first: one watcher task for every
/// store of the process, ticking while any deadline is pending, instead of a sleeping timer task
/// per `send` (two task switches and a system timer on every request that starts work).
final class Deadlines: Sendable {
  static let shared = Deadlines()

  /// How late past its deadline a closure may run.
  static let tick = Duration.milliseconds(10)

  private struct Pending {
    var entries: [UInt64: (due: ContinuousClock.Instant, expire: @Sendable () -> Void)] = [:]
    var nextID: UInt64 = 0
    var watching = false
  }

  private let pending = Mutex(Pending())

  /// Runs `expire` once `duration` has passed, unless `remove` is called with the returned id first.
  func add(after duration: Duration, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
    let due = ContinuousClock.now + duration
    let (id, startWatching) = pending.withLock { pending in
      pending.nextID += 1
      pending.entries[pending.nextID] = (due, expire)
      defer { pending.watching = true }
      return (pending.nextID, !pending.watching)
    }
    if startWatching { Task.detached { await self.watch() } }
    return id
  }

  func remove(_ id: UInt64) {
    pending.withLock { _ = $0.entries.removeValue(forKey: id) }
  }

  /// Every tick, runs the closures that are due; stops when nothing is pending.
  private func watch() async {
    while true {
      try? await Task.sleep(for: Self.tick)
      let now = ContinuousClock.now
      let (due, done) = pending.withLock { pending in
        let due = pending.entries.filter { $0.value.due <= now }
        for id in due.keys { pending.entries[id] = nil }
        if pending.entries.isEmpty { pending.watching = false }
        return (due.values.map(\.expire), !pending.watching)
      }
      for expire in due { expire() }
      if done { return }
    }
  }
}
