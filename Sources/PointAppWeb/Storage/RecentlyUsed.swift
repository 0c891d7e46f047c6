import Synchronization

/// A bounded map that keeps what is in use: two generations, the current one and the one before.
/// An entry found in the older one moves to the current one; when the current one is full it
/// becomes the older one, and the entries nobody asked for since are dropped. (Dropping an
/// arbitrary entry when full could drop the same busy entry again and again.)
struct RecentlyUsed<Key: Hashable, Value> {
  private var current: [Key: Value] = [:]
  private var older: [Key: Value] = [:]
  /// Entries per generation: at most twice as many are kept.
  let generation: Int

  init(generation: Int) {
    self.generation = generation
  }

  subscript(key: Key) -> Value? {
    mutating get {
      if let value = current[key] { return value }
      guard let value = older.removeValue(forKey: key) else { return nil }
      self[key] = value
      return value
    }
    set {
      guard let newValue else {
        current[key] = nil
        older[key] = nil
        return
      }
      if current[key] == nil, current.count >= generation {
        older = current
        current = [:]
      }
      current[key] = newValue
    }
  }
}

/// A `RecentlyUsed` map shared between tasks, for values that are pure functions of their key
/// (a session id's mark): kept to spare the work, never to know more.
final class RecentlyUsedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private let map: Mutex<RecentlyUsed<Key, Value>>

  init(generation: Int) {
    map = Mutex(RecentlyUsed(generation: generation))
  }

  /// The value of `key`, made by `make` unless kept.
  func value(of key: Key, _ make: () -> Value) -> Value {
    if let kept = map.withLock({ $0[key] }) { return kept }
    let value = make()
    map.withLock { $0[key] = value }
    return value
  }
}
