import Foundation
import Logging
import ServiceLifecycle

/// Deletes expired sessions (files or rows) in bounded steps: `batch` records every `interval`,
/// going round the store, so that its cost never depends on how many sessions there are.
struct SessionPruning: Service {
  let sessions: Sessions
  /// The clock sessions are stamped with (the request loop's).
  let now: @Sendable () -> Date
  let logger: Logger
  var interval: Duration = .seconds(30)
  var batch = 500

  func run() async throws {
    var cursor: SessionID?
    while !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
      } catch {
        return
      }
      do {
        let step = try await sessions.pruneExpired(after: cursor, limit: batch, now: now())
        cursor = step.next
        if step.pruned > 0 { logger.info("expired sessions pruned", metadata: ["sessions": "\(step.pruned)"]) }
      } catch {
        // The store is down: the next step tries again from the same place.
        logger.warning("pruning sessions failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
