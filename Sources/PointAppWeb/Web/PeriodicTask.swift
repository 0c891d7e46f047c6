import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// A step run every `interval` until the server shuts down: the session pruning, the catalog's
/// version check. A step that fails is logged, and the next one tries again.
struct PeriodicTask: Service {
  let name: String
  let interval: Duration
  let logger: Logger
  /// Whether the step runs at start, before the first interval.
  var firstAtStart = false
  let step: @Sendable () async throws -> Void

  func run() async throws {
    if firstAtStart { await stepLogged() }
    while !Task.isShuttingDownGracefully {
      do {
        try await cancelWhenGracefulShutdown { try await Self.sleep(for: interval) }
      } catch {
        return
      }
      await stepLogged()
    }
  }

  private func stepLogged() async {
    do {
      try await step()
    } catch {
      logger.warning("\(name) failed", metadata: ["error": "\(error)"])
    }
  }

  /// Sleeps on an event loop's timer. Under libfaketime (the crash test and the walks run the
  /// server two years ahead) a `Task.sleep` was seen never to wake: its deadline is taken on a
  /// clock the executor does not read the same way; an event loop reads one clock for both.
  static func sleep(for interval: Duration) async throws {
    let timer = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: interval.timeAmount) {}
    try await withTaskCancellationHandler {
      try await timer.futureResult.get()
    } onCancel: {
      timer.cancel()
    }
  }
}
