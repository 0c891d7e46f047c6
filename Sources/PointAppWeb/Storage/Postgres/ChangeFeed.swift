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
/// - **Your own writes on another instance:** every form's response, and every save, sets a mark
///   (`pointapp_state`, `<ms since 1970, hex>-<random>`) notified once the request's writes
///   committed. An instance that heard a browser's mark has heard every change that browser made
///   before; until it has, that browser's requests read the rows (`covers`).
/// - **Lost:** each second the feed's connection notifies a ping of its own. Nothing cached is
///   served unless the newest ping heard was sent less than `freshness` ago; a ping that cannot
///   be sent, or none heard for that long, ends the connection and empties every cache until
///   `LISTEN` is back. Having heard a ping means having heard every commit before it, which is why
///   a mark issued `markMargin` before the newest ping is covered without being heard
///   (instances' clocks agree within seconds).
public final class ChangeFeed: Service, Sendable {
  static let channel = "pointapp_changes"
  static let applicationName = "pointapp change feed"
  static let pingInterval = Duration.seconds(1)
  /// How long a ping may take to be sent on the feed's connection.
  static let pingLimit = Duration.seconds(3)
  /// How old, by when it was sent, the newest ping heard may be for anything cached to be served.
  static let freshness: TimeInterval = 4
  /// A mark issued this long before the newest ping heard was sent is covered without being heard:
  /// its request's writes committed before that ping (a request's writes take far less), so they
  /// were heard before it.
  static let markMargin: TimeInterval = 30
  /// How long a mark heard is remembered: past this, `markMargin` covers it.
  static let markMemory: TimeInterval = 60

  /// Whether this task's reads may be served from the caches: set for a request whose browser's
  /// mark is covered (`RequestLoop`), never inside a transaction.
  @TaskLocal static var servesCached = false

  let database: Database
  let logger: Logger
  let users = ReadCache<(data: Data, version: Int64)?>(generation: 500)
  let sessions = ReadCache<(data: Data, version: Int64)?>(generation: 4000)
  let accounts = ReadCache<(data: Data, version: Int64)?>(generation: 1000)
  private let instance = String(UInt64.random(in: 0...UInt64.max), radix: 16)

  private struct Listening {
    var live = false
    /// When the newest ping of this instance's that was heard had been sent.
    var pingSent: Date?
    /// Marks heard, with when, and in that order (the oldest are forgotten first).
    var marks: [String: Date] = [:]
    var order: [(mark: String, heard: Date)] = []
    var oldest = 0
  }

  private let listening = Mutex(Listening())

  public init(_ database: Database, logger: Logger) {
    self.database = database
    self.logger = logger
  }

  /// Listening, and its newest ping heard is fresh.
  public var isLive: Bool { listening.withLock { Self.isFresh($0, now: Date()) } }

  private static func isFresh(_ listening: Listening, now: Date) -> Bool {
    guard listening.live, let sent = listening.pingSent else { return false }
    return now.timeIntervalSince(sent) < freshness
  }

  /// Listens until the server shuts down, and again whenever the connection is lost.
  public func run() async throws {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.listenAgainAndAgain() }
      try? await gracefulShutdown()
      group.cancelAll()
    }
  }

  /// Whether a request from a browser that last saw `mark` may read what is cached.
  func covers(mark: Substring?, now: Date = Date()) -> Bool {
    listening.withLock { listening in
      guard Self.isFresh(listening, now: now), let sent = listening.pingSent else { return false }
      guard let mark else { return true }
      if listening.marks[String(mark)] != nil { return true }
      // A cookie from before marks: as old as can be.
      guard let issued = Self.issued(mark) else { return true }
      return issued < sent.addingTimeInterval(-Self.markMargin)
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

  /// A mark not yet notified.
  static func newMark(now: Date = Date()) -> String {
    milliseconds(now) + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
  }

  static func issued(_ mark: Substring) -> Date? {
    guard let dash = mark.firstIndex(of: "-"), let ms = UInt64(mark[..<dash], radix: 16) else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(ms) / 1000)
  }

  private static func milliseconds(_ date: Date) -> String {
    String(UInt64(max(0, date.timeIntervalSince1970 * 1000)), radix: 16)
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
      // `<instance>-<ms sent>`: every commit before it has been heard.
      guard key.hasPrefix(instance + "-"), let ms = UInt64(key.dropFirst(instance.count + 1), radix: 16) else { return }
      let sent = Date(timeIntervalSince1970: TimeInterval(ms) / 1000)
      listening.withLock { listening in
        if listening.pingSent.map({ $0 < sent }) ?? true { listening.pingSent = sent }
      }
    default: return
    }
  }

  private func heard(mark: String, now: Date) {
    listening.withLock { listening in
      listening.marks[mark] = now
      listening.order.append((mark, now))
      while listening.oldest < listening.order.count,
        now.timeIntervalSince(listening.order[listening.oldest].heard) > Self.markMemory
      {
        let (old, heard) = listening.order[listening.oldest]
        if listening.marks[old] == heard { listening.marks[old] = nil }
        listening.oldest += 1
      }
      if listening.oldest > 1_024, listening.oldest * 2 > listening.order.count {
        listening.order.removeFirst(listening.oldest)
        listening.oldest = 0
      }
    }
  }

  /// Empties every cache; cached reads stay off until `live` again and a ping is heard.
  func reset(live: Bool) {
    listening.withLock { $0.live = false }
    users.reset(live: live)
    sessions.reset(live: live)
    accounts.reset(live: live)
    listening.withLock { listening in
      listening = Listening()
      listening.live = live
    }
  }

  private struct Late: Error, CustomStringConvertible {
    var description: String { "no ping of this instance's heard for \(ChangeFeed.freshness) s" }
  }

  private func listenAgainAndAgain() async {
    while !Task.isCancelled {
      do {
        // A connection of its own: the pool's are the requests'.
        var configuration = try Database.configuration(database.url)
        // So that `pg_stat_activity` tells it from the pool's.
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        defer { Task { try? await connection.close() } }
        try await connection.listen(on: Self.channel) { notifications in
          // LISTEN is in effect: what is read from now on is heard of when it changes.
          reset(live: true)
          logger.info("listening to the database's changes: cached reads on")
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              for try await notification in notifications { self.hear(notification.payload) }
            }
            // Pings on the same connection, each second: one that cannot be sent within its limit
            // (the connection is closed then), or a feed that has heard none for `freshness`,
            // ends the connection, and a new one is made.
            group.addTask {
              let since = Date()
              while true {
                let now = Date()
                let sent = self.listening.withLock { $0.pingSent } ?? since
                if now.timeIntervalSince(sent) > Self.freshness { throw Late() }
                let payload = "ping:\(self.instance)-\(Self.milliseconds(now))"
                try await connection.run("SELECT pg_notify(\(Self.channel), \(payload))", logger: self.logger, limit: Self.pingLimit)
                try await Task.sleep(for: Self.pingInterval)
              }
            }
            try await group.next()
            group.cancelAll()
          }
        }
      } catch is CancellationError {
      } catch {
        logger.warning("the database's changes cannot be heard: cached reads off", metadata: ["error": "\(Database.loggable(error))"])
      }
      reset(live: false)
      try? await Task.sleep(for: .milliseconds(500))
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

/// Users' states, sessions and accounts read through the feed's cache; every write drops its entry here at once
/// (the trigger's notification drops it everywhere).
struct CachedRecordStorage: RecordStorage {
  let base: any RecordStorage
  let cache: ReadCache<(data: Data, version: Int64)?>

  /// Never from the cache: a write follows.
  func readForUpdate(_ name: String) async throws -> (data: Data, version: Int64)? {
    try await base.readForUpdate(name)
  }

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
