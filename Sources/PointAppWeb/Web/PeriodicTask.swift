import Logging
import ServiceLifecycle

/// A step run every `interval` until the server shuts down: the session pruning, the catalog's
/// version check. A step that fails is logged, and the next one tries again.
struct PeriodicTask: Service {
  let name: String
  let interval: Duration
  let logger: Logger
  /// Whether the step runs once more as the server shuts down (after the requests, as the
  /// services stop in the reverse order of their start).
  var lastAtShutdown = false
  let step: @Sendable () async throws -> Void

  func run() async throws {
    while !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
      } catch {
        if lastAtShutdown { try? await step() }
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
