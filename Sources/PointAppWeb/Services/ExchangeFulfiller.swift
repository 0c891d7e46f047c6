import Logging
import PointApp

/// Takes up the exchange requests left pending (申請中): at start-up, then every so often, each
/// is asked of the issuer again through the user's own update (`Exchange`'s
/// `.fulfilmentRequested`, which gives up on one pending for too long and refunds it unless a
/// code was issued). Several instances may sweep at once: the user's lock orders them, and a
/// request that has ended is not asked again.
struct ExchangeFulfiller: Sendable {
  let queue: ExchangeQueue
  let loop: RequestLoop
  let logger: Logger

  /// One pass over the queue; returns how many requests ended in it. A request whose update fails
  /// (its user's file unreadable, the deadline) is logged and left for the next pass: it never
  /// holds up the others.
  @discardableResult
  func sweep() async throws -> Int {
    var ended = 0
    var cursor: ExchangeQueue.Entry?
    while true {
      let entries = try await queue.entries(after: cursor)
      guard let last = entries.last else { return ended }
      for entry in entries {
        do {
          if try await fulfil(entry) { ended += 1 }
        } catch {
          logger.warning("a pending exchange could not be taken up", metadata: ["entry": "\(entry.name)", "error": "\(error)"])
        }
      }
      cursor = last
    }
  }

  /// Asks for one request again; `true` once it has ended (or was never saved), when its entry
  /// leaves the queue.
  func fulfil(_ entry: ExchangeQueue.Entry) async throws -> Bool {
    let state = try await loop.send(.exchange(.fulfilmentRequested(entry.number)), to: entry.user)
    guard state?.progress.exchangeRequest(entry.number)?.isPending != true else { return false }
    try await queue.remove(entry)
    return true
  }
}
