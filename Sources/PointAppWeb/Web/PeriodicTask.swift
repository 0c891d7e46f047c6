import Logging
import ServiceLifecycle

/// A step run every `interval` until the server shuts down: the session pruning, the catalog's
/// version check. A step that fails is logged, and the next one tries again.
struct PeriodicTask: Service {
  let name: String
  let interval: Duration
  let logger: Logger
  let step: @Sendable () async throws -> Void

  func run() async throws {
    while !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
      } catch {
        return
      }
      do {
        try await step()
      } catch {
        logger.warning("\(name) failed", metadata: ["error": "\(error)"])
      }
    }
  }
}
