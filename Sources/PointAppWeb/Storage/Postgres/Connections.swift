import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// An instance's connections to PostgreSQL (`Database`'s): up to `size` open at once, each kept
/// open between uses and handed straight to the next one waiting, if any.
///
/// PostgresNIO's pool (`PostgresClient`) arms an idle timer whenever a connection comes back: a
/// task group around a sleeping task, whose libdispatch timer lives on after its cancellation at
/// the next lease. Under P2's load that was 6 % of the server's CPU. These connections stay open
/// instead; one the server closed (a restart, a watchdog) is dropped when it comes back or when
/// it is next taken, and replaced by a new one.
final class Connections: Sendable {
  private struct Waiter {
    let id: UInt64
    let continuation: CheckedContinuation<PostgresConnection?, any Error>
  }

  /// The waits' ids are 1, 2, 3… in the order they begin.
  private struct State {
    var idle: [PostgresConnection] = []
    /// Idle, in use, or being opened.
    var open = 0
    /// First come, first served: each is given a connection that comes back, or `nil` when a
    /// place to open one is free.
    var waiting: [Waiter] = []
    var nextWaiter: UInt64 = 0
    /// The waits not over yet, queued or about to be.
    var live: Set<UInt64> = []
    /// Waits ended (deadline, cancellation) before they had begun.
    var ended: [UInt64: any Error] = [:]
    var closed = false
  }

  private let state = Mutex(State())
  private let configuration: PostgresConnection.Configuration
  private let size: Int
  private let logger: Logger
  private let ids = Atomic(0)
  /// Between two attempts to connect while the database refuses.
  static let retryDelay = Duration.milliseconds(100)

  init(_ configuration: PostgresConnection.Configuration, size: Int, logger: Logger) {
    self.configuration = configuration
    self.size = max(1, size)
    self.logger = logger
  }

  /// Idle connections are closed when their pool goes (one never closed is a bug to PostgresNIO);
  /// each is kept until its channel is.
  deinit {
    for connection in state.withLock({ $0.idle }) {
      connection.close().whenComplete { _ in _ = connection }
    }
  }

  /// A connection within `limit`: an idle one, else a new one while fewer than `size` are open
  /// (tried again until the limit while the database refuses), else the next one given back.
  /// Each must be given back (`giveBack`).
  func take(within limit: Duration) async throws -> PostgresConnection {
    let deadline = ContinuousClock.now + limit
    while true {
      switch try nextStep() {
      case let .use(connection):
        return connection
      case .open:
        do {
          return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
            id: ids.add(1, ordering: .relaxed).newValue, logger: logger
          )
        } catch {
          placeFreed()
          guard ContinuousClock.now + Self.retryDelay < deadline else {
            throw DatabaseUnavailable(reason: "no connection to PostgreSQL within \(limit): \(Database.loggable(error))")
          }
        }
        try await Task.sleep(for: Self.retryDelay)
      case .wait:
        if let connection = try await waitForOne(until: deadline, limit: limit) { return connection }
      }
    }
  }

  /// Back from its user: to the first one waiting, else idle; dropped if it is closed.
  func giveBack(_ connection: PostgresConnection) {
    let (waiter, handed, closing) = state.withLock { state -> (Waiter?, PostgresConnection?, Bool) in
      if connection.isClosed || state.closed {
        state.open -= 1
        return (state.waiting.isEmpty ? nil : state.waiting.removeFirst(), nil, state.closed)
      }
      guard state.waiting.isEmpty else { return (state.waiting.removeFirst(), connection, false) }
      state.idle.append(connection)
      return (nil, nil, false)
    }
    waiter?.continuation.resume(returning: handed)
    if closing { Task { try? await connection.close() } }
  }

  /// Waits ended whose entries are still kept (each only until its wait is over).
  var endedWaits: Int { state.withLock { $0.ended.count } }

  /// Closes the idle connections, and each one in use when it comes back; takes no more.
  func close() async {
    let (idle, waiting) = state.withLock { state in
      state.closed = true
      state.open -= state.idle.count
      defer { state.idle = []; state.waiting = [] }
      return (state.idle, state.waiting)
    }
    for waiter in waiting { waiter.continuation.resume(throwing: DatabaseUnavailable(reason: "the server is stopping")) }
    for connection in idle { try? await connection.close() }
  }

  private enum Step {
    case use(PostgresConnection)
    case open
    case wait
  }

  private func nextStep() throws -> Step {
    try state.withLock { state in
      guard !state.closed else { throw DatabaseUnavailable(reason: "the server is stopping") }
      while let connection = state.idle.popLast() {
        if !connection.isClosed { return .use(connection) }
        state.open -= 1
      }
      guard state.open < size else { return .wait }
      state.open += 1
      return .open
    }
  }

  /// A place to open a connection is free again: the first one waiting may take it.
  private func placeFreed() {
    let waiter = state.withLock { state -> Waiter? in
      state.open -= 1
      return state.waiting.isEmpty ? nil : state.waiting.removeFirst()
    }
    waiter?.continuation.resume(returning: nil)
  }

  /// The next connection given back, or `nil` when a place to open one is free.
  private func waitForOne(until deadline: ContinuousClock.Instant, limit: Duration) async throws -> PostgresConnection? {
    let id = state.withLock { state in
      state.nextWaiter += 1
      state.live.insert(state.nextWaiter)
      return state.nextWaiter
    }
    let timer = Database.deadlines.add(in: deadline - .now) {
      self.stopWaiting(id, DatabaseUnavailable(reason: "no connection to PostgreSQL within \(limit)"))
    }
    defer {
      Database.deadlines.remove(timer)
      state.withLock { state in
        state.live.remove(id)
        state.ended.removeValue(forKey: id)
      }
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let now = state.withLock { state -> Result<PostgresConnection?, any Error>? in
          if state.closed { return .failure(DatabaseUnavailable(reason: "the server is stopping")) }
          if let ended = state.ended[id] { return .failure(ended) }
          // Given back or dropped between the step and this wait: look again.
          if !state.idle.isEmpty || state.open < size { return .success(nil) }
          state.waiting.append(Waiter(id: id, continuation: continuation))
          return nil
        }
        if let now { continuation.resume(with: now) }
      }
    } onCancel: {
      stopWaiting(id, CancellationError())
    }
  }

  /// Ends the wait `id` with `error` (its deadline, its cancellation), unless it is over.
  func stopWaiting(_ id: UInt64, _ error: any Error) {
    let waiter = state.withLock { state -> Waiter? in
      guard let index = state.waiting.firstIndex(where: { $0.id == id }) else {
        // Before the wait began, it must end as soon as it does; after it is over (a deadline
        // passed as the connection came), nothing is kept for it.
        if state.live.contains(id) { state.ended[id] = error }
        return nil
      }
      return state.waiting.remove(at: index)
    }
    waiter?.continuation.resume(throwing: error)
  }
}
