import Foundation
import Logging
import PointApp
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// What PostgreSQL tells this instance of the rows every instance changes (`users`, `sessions`,
/// `accounts`), so that a page view needs no statement for a session and a state that did not
/// change: each instance keeps what it read (`ReadCache`), and drops an entry as the commit that
/// changed its row is heard.
///
/// - **Heard:** migration 8's triggers `NOTIFY pointapp_changes, '<table>:<id>'` in the
///   transaction of every write, delivered once it commits, in commit order, to one `LISTEN`
///   connection per instance.
/// - **Your own writes on another instance:** every form's response (and every save) sets a mark
///   (`pointapp_state`, `<ms since 1970, hex>-<random>`) notified after the form's writes committed:
///   with the user's state when that was the last (`users:<id>:<mark>`), else on its own.
///   An instance that heard a browser's mark has heard every change that browser made before;
///   until it has, that browser's requests read the rows (`covers`).
/// - **Lost:** a `LISTEN` connection that closes, or a ping of its own not heard within
///   `pingLimit`, empties every cache and serves nothing cached until `LISTEN` is back. A
///   notification is therefore heard within `pingInterval + pingLimit` of its commit or the
///   caches are emptied, which is why a mark older than `markAge` is covered without being heard
///   (instances' clocks agree within seconds).
public final class ChangeFeed: Service, Sendable {
  static let channel = "pointapp_changes"
  static let pingInterval = Duration.seconds(1)
  static let pingLimit = Duration.seconds(3)
  static let markAge: TimeInterval = 10

  /// Whether this task's reads may be served from the caches: set for a request whose browser's
  /// mark is covered (`RequestLoop`), never inside a transaction.
  @TaskLocal static var servesCached = false

  let database: Database
  let logger: Logger
  let users = ReadCache<Data?>(generation: 500)
  let sessions = ReadCache<(data: Data, version: Int64)?>(generation: 1000)
  let accounts = ReadCache<(data: Data, version: Int64)?>(generation: 1000)
  private let instance = String(UInt64.random(in: 0...UInt64.max), radix: 16)

  private struct Listening {
    var live = false
    /// Marks heard, with when: forgotten once older than `markAge` can tell.
    var marks: [String: Date] = [:]
    var pingsSent = 0
    var pingsHeard = 0
    var sentAt: [Int: ContinuousClock.Instant] = [:]
    var connection: Task<Void, Never>?
  }

  private let listening = Mutex(Listening())

  public init(_ database: Database, logger: Logger) {
    self.database = database
    self.logger = logger
  }

  public var isLive: Bool { listening.withLock { $0.live } }

  /// Listens, and pings, until the server shuts down.
  public func run() async throws {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.listenAgainAndAgain() }
      group.addTask { await self.pingEverySecond() }
      try? await gracefulShutdown()
      group.cancelAll()
      listening.withLock { $0.connection?.cancel() }
    }
  }

  /// Whether a request from a browser that last saw `mark` may read what is cached.
  func covers(mark: Substring?, now: Date = Date()) -> Bool {
    listening.withLock { listening in
      guard listening.live else { return false }
      guard let mark else { return true }
      if listening.marks[String(mark)] != nil { return true }
      guard let issued = Self.issued(mark) else { return true }
      return now.timeIntervalSince(issued) > Self.markAge
    }
  }

  /// A new mark, notified: once an instance hears it, it has heard every commit before it.
  /// Notifying may fail (the database is down): the mark is returned all the same, and is covered
  /// by its age.
  func mark(now: Date = Date()) async -> String {
    let mark = Self.newMark(now: now)
    _ = try? await database.query("SELECT pg_notify(\(Self.channel), \("mark:" + mark))")
    return mark
  }

  /// A mark not yet notified: a user's save notifies it with the state (`UserSave.mark`).
  static func newMark(now: Date = Date()) -> String {
    String(UInt64(max(0, now.timeIntervalSince1970 * 1000)), radix: 16) + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
  }

  static func issued(_ mark: Substring) -> Date? {
    guard let dash = mark.firstIndex(of: "-"), let ms = UInt64(mark[..<dash], radix: 16) else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(ms) / 1000)
  }

  /// What a notification says: a row changed (dropped from its cache), a mark, or a ping.
  func hear(_ payload: String, now: Date = Date()) {
    guard let colon = payload.firstIndex(of: ":") else { return }
    let key = String(payload[payload.index(after: colon)...])
    switch payload[..<colon] {
    case "users":
      // `<id>:<mark>` from a save that carried one: dropped first, then heard.
      let parts = key.split(separator: ":", maxSplits: 1)
      users.invalidate(String(parts[0]))
      if parts.count == 2 { heard(mark: String(parts[1]), now: now) }
    case "sessions": sessions.invalidate(key)
    case "accounts": accounts.invalidate(key)
    case "mark": heard(mark: key, now: now)
    case "ping":
      let parts = key.split(separator: ":")
      guard parts.count == 2, parts[0] == instance, let number = Int(parts[1]) else { return }
      listening.withLock { listening in
        listening.pingsHeard = max(listening.pingsHeard, number)
        listening.sentAt = listening.sentAt.filter { $0.key > number }
      }
    default: return
    }
  }

  private func heard(mark: String, now: Date) {
    listening.withLock { listening in
      if listening.marks.count > 10_000 {
        listening.marks = listening.marks.filter { now.timeIntervalSince($0.value) < Self.markAge * 2 }
      }
      listening.marks[mark] = now
    }
  }

  /// Empties every cache; cached reads stay off until `live` again.
  func reset(live: Bool) {
    listening.withLock { $0.live = false }
    users.reset(live: live)
    sessions.reset(live: live)
    accounts.reset(live: live)
    listening.withLock { listening in
      listening.live = live
      listening.marks = [:]
      listening.sentAt = [:]
    }
  }

  private func listenAgainAndAgain() async {
    while !Task.isCancelled {
      let connection = Task {
        do {
          // A connection of its own: the pool's are the requests'.
          let connection = try await PostgresConnection.connect(
            configuration: Database.connectionConfiguration(database.url), id: 0, logger: logger
          )
          defer { Task { try? await connection.close() } }
          try await connection.listen(on: Self.channel) { notifications in
              // LISTEN is in effect: what is read from now on is heard of when it changes.
              reset(live: true)
              logger.info("listening to the database's changes: cached reads on")
              for try await notification in notifications { hear(notification.payload) }
            }
        } catch {
          logger.warning("the database's changes cannot be heard: cached reads off", metadata: ["error": "\(Database.loggable(error))"])
        }
        reset(live: false)
      }
      listening.withLock { $0.connection = connection }
      await withTaskCancellationHandler { await connection.value } onCancel: { connection.cancel() }
      try? await Task.sleep(for: .milliseconds(500))
    }
  }

  /// Each second a ping of this instance's own; one not heard within `pingLimit` means the feed
  /// is behind or gone: the caches are emptied, and `LISTEN` starts again.
  private func pingEverySecond() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: Self.pingInterval)
      let now = ContinuousClock.now
      let (number, late) = listening.withLock { listening -> (Int, Bool) in
        listening.pingsSent += 1
        listening.sentAt[listening.pingsSent] = now
        let late = listening.live && listening.sentAt.contains { $0.key <= listening.pingsSent && now - $0.value > Self.pingLimit }
        if late { listening.sentAt = [:] }
        return (listening.pingsSent, late)
      }
      if late {
        logger.warning("the database's changes are late: cached reads off until heard again")
        reset(live: false)
        listening.withLock { $0.connection?.cancel() }
      }
      _ = try? await database.query("SELECT pg_notify(\(Self.channel), \("ping:\(instance):\(number)"))")
    }
  }
}

/// Rows as last read, kept until PostgreSQL says they changed (`ChangeFeed`). A read that was
/// under way while its row changed is never kept: each read takes a ticket before it starts, and
/// what it read is kept only if no change of its row (and no reset) was heard since.
final class ReadCache<Value: Sendable>: Sendable {
  private struct State {
    var entries: RecentlyUsed<String, Value>
    var live = false
    /// Counts changes heard: a ticket is the count when a read started.
    var heard: UInt64 = 0
    /// The count at each key's last change, while few enough to keep; a ticket before `floor`
    /// is refused.
    var changed: [String: UInt64] = [:]
    var floor: UInt64 = 0
  }

  private let state: Mutex<State>

  init(generation: Int) {
    state = Mutex(State(entries: RecentlyUsed(generation: generation)))
  }

  /// The value kept for `key`: `.some(nil)` is a row known not to exist.
  func cached(_ key: String) -> Value? {
    state.withLock { $0.live ? $0.entries[key] : nil }
  }

  /// To be taken before a read whose result may be kept.
  func ticket() -> UInt64 {
    state.withLock { $0.heard }
  }

  /// Keeps what a read that began at `ticket` found, unless its row changed since.
  func keep(_ value: Value, for key: String, ticket: UInt64) {
    state.withLock { state in
      guard state.live, ticket >= state.floor, (state.changed[key] ?? 0) <= ticket else { return }
      state.entries[key] = value
    }
  }

  func invalidate(_ key: String) {
    state.withLock { state in
      state.heard += 1
      state.entries[key] = nil
      if state.changed.count >= 2_000 {
        state.changed = [:]
        state.floor = state.heard
      }
      state.changed[key] = state.heard
    }
  }

  /// Forgets everything, and every read under way; serves and keeps nothing unless `live`.
  func reset(live: Bool) {
    state.withLock { state in
      state.heard += 1
      state.floor = state.heard
      state.changed = [:]
      state.entries = RecentlyUsed(generation: state.entries.generation)
      state.live = live
    }
  }

  /// Reads `key` through the cache when this task may, else from `read` (kept all the same).
  func read(_ key: String, _ read: () async throws -> Value) async throws -> Value {
    let mayServe = ChangeFeed.servesCached && OpenTransaction.current == nil
    if mayServe, let value = cached(key) { return value }
    let ticket = ticket()
    let value = try await read()
    if OpenTransaction.current == nil { keep(value, for: key, ticket: ticket) }
    return value
  }
}

/// Sessions and accounts read through the feed's cache; every write drops its entry here at once
/// (the trigger's notification drops it everywhere).
struct CachedRecordStorage: RecordStorage {
  let base: any RecordStorage
  let cache: ReadCache<(data: Data, version: Int64)?>

  func read(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await cache.read(name) { try await base.read(name) }
  }

  func create(_ name: String, _ data: Data) async throws -> Bool {
    defer { cache.invalidate(name) }
    return try await base.create(name, data)
  }

  func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool {
    defer { cache.invalidate(name) }
    return try await base.replace(name, data, at: version)
  }

  func delete(_ name: String, at version: Int64) async throws -> Bool {
    defer { cache.invalidate(name) }
    return try await base.delete(name, at: version)
  }

  func names(after name: String?, limit: Int) async throws -> [String] {
    try await base.names(after: name, limit: limit)
  }

  func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    try await base.records(prefixed: prefix, after: name, limit: limit)
  }
}

/// Users' states read through the feed's cache (the first look of a page view); an update reads
/// the row under the user's lock, always.
struct CachedUserStateStore: UserStateStore {
  let base: any UserStateStore
  let cache: ReadCache<Data?>

  func update<Result: Sendable>(
    _ user: UserID, _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    defer { cache.invalidate(user.rawValue) }
    return try await base.update(user, body)
  }

  func read(_ user: UserID) async throws -> Data? {
    try await cache.read(user.rawValue) { try await base.read(user) }
  }

  func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    try await base.archived(names, of: user)
  }
}
