/// Serialises async work per key: work for one key runs one at a time, in arrival order; work for
/// different keys runs in parallel.
final class KeyedMutex<Key: Hashable & Sendable>: Sendable {
  private let state = Waiters()

  /// Waits for `key`, for work that ends elsewhere (`release`): a holding's records.
  func acquire(_ key: Key) async {
    await state.acquire(key)
  }

  func release(_ key: Key) async {
    await state.release(key)
  }

  func withLock<T: Sendable>(_ key: Key, _ body: () async throws -> T) async throws -> T {
    await state.acquire(key)
    do {
      let result = try await body()
      await state.release(key)
      return result
    } catch {
      await state.release(key)
      throw error
    }
  }

  private actor Waiters {
    /// Present while the key is held; the continuations of those waiting for it.
    private var queues: [Key: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ key: Key) async {
      guard queues[key] != nil else {
        queues[key] = []
        return
      }
      await withCheckedContinuation { queues[key]!.append($0) }
    }

    func release(_ key: Key) {
      guard var waiting = queues[key], !waiting.isEmpty else {
        queues[key] = nil
        return
      }
      let next = waiting.removeFirst()
      queues[key] = waiting
      next.resume()
    }
  }
}
