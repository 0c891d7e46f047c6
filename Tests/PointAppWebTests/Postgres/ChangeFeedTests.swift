import Foundation
import PointApp
import PostgresNIO
import Synchronization
import Testing

@testable import PointAppWeb

/// What a read that was under way when its row changed may keep: nothing.
struct ReadCacheTests {
  @Test func aReadUnderWayWhenItsRowChangesIsNotKept() {
    let cache = ReadCache<Int?>(generation: 10)
    cache.reset(live: true)
    let ticket = cache.ticket()
    cache.invalidate("a")
    cache.keep(1, for: "a", ticket: ticket)
    #expect(cache.cached("a") == nil, "the row changed while it was read")
    cache.keep(2, for: "b", ticket: ticket)
    #expect(cache.cached("b") == .some(2), "another row's change does not matter")
    cache.keep(nil, for: "c", ticket: cache.ticket())
    #expect(cache.cached("c") == .some(nil), "a row known not to exist")
    cache.invalidate("b")
    #expect(cache.cached("b") == nil)
  }

  @Test func aResetForgetsEverythingAndEveryReadUnderWay() {
    let cache = ReadCache<Int?>(generation: 10)
    cache.reset(live: true)
    cache.keep(1, for: "a", ticket: cache.ticket())
    let before = cache.ticket()
    cache.reset(live: true)
    #expect(cache.cached("a") == nil)
    cache.keep(2, for: "b", ticket: before)
    #expect(cache.cached("b") == nil, "a read from before the reset")
    cache.reset(live: false)
    cache.keep(3, for: "c", ticket: cache.ticket())
    #expect(cache.cached("c") == nil, "nothing is kept while the feed is not heard")
  }

  @Test func aTaskThatMayNotServeCachedReadsTheRowAndKeepsIt() async throws {
    let cache = ReadCache<Int?>(generation: 10)
    cache.reset(live: true)
    let reads = Counter()
    let read: @Sendable () async throws -> Int? = { reads.add(); return 7 }
    #expect(try await cache.read("a", read) == 7)
    #expect(try await cache.read("a", read) == 7)
    #expect(reads.value == 2, "outside a covered request every read is the row's")
    let served = try await ChangeFeed.$servesCached.withValue(true) { try await cache.read("a", read) }
    #expect(served == 7)
    #expect(reads.value == 2, "kept by the reads before")
  }
}

/// Two instances on one database, each with its change feed: what one writes, the other serves
/// from its cache only once it has heard of it.
@Suite(.enabled(if: TestDatabase.enabled, "PostgreSQL's server is not installed (apt-get install postgresql)"))
struct ChangeFeedTests {
  struct Instance {
    let database: Database
    let feed: ChangeFeed
    let sessions: CachedRecordStorage
    let running: Task<Void, any Error>

    init(_ database: Database) {
      self.database = database
      feed = ChangeFeed(database, logger: TestDatabase.logger)
      sessions = CachedRecordStorage(base: PostgresRecordStorage(database, table: "sessions"), cache: feed.sessions)
      running = Task { [feed] in try await feed.run() }
    }

    /// Reads as a request from a browser that last saw `mark` would.
    func read(_ name: String, mark: String? = nil) async throws -> String? {
      try await ChangeFeed.$servesCached.withValue(feed.covers(mark: mark.map { $0[...] })) {
        try await sessions.read(name).map { String(decoding: $0.data, as: UTF8.self) }
      }
    }

    func stop() async {
      running.cancel()
      _ = await running.result
      await database.close()
    }
  }

  static func until(_ condition: () async throws -> Bool) async throws {
    for _ in 0..<100 {
      if try await condition() { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("not within 5 seconds")
  }

  @Test func aWriteIsServedByTheOtherInstanceAsSoonAsItsBrowserAsks() async throws {
    let database = try await TestDatabase.make()
    let one = Instance(database)
    let two = Instance(try TestDatabase.another(database))
    try await Self.until { one.feed.isLive && two.feed.isLive }
    #expect(try await one.sessions.create("s1", Data(#"{"n":0}"#.utf8)))
    try await Self.until { try await two.read("s1") == #"{"n":0}"# && two.feed.sessions.cached("s1") != nil }
    // Changed behind the feed's back: the cached record is what the other instance serves.
    try await database.query("ALTER TABLE sessions DISABLE TRIGGER sessions_changed")
    try await database.query(#"UPDATE sessions SET record = '{"n":-1}', version = version + 1 WHERE id = 's1'"#)
    #expect(try await two.read("s1") == #"{"n":0}"#, "served from the cache, no statement")
    try await database.query("ALTER TABLE sessions ENABLE TRIGGER sessions_changed")
    // Each write on one instance, then its mark: the other serves it to that browser at once.
    for n in 1...30 {
      let version = try #require(try await one.sessions.read("s1")).version
      #expect(try await one.sessions.replace("s1", Data(#"{"n":\#(n)}"#.utf8), at: version))
      let mark = await one.feed.mark()
      #expect(try await two.read("s1", mark: mark) == #"{"n":\#(n)}"#)
    }
    // And to everyone once it is heard.
    try await Self.until { try await two.read("s1") == #"{"n":30}"# && two.feed.sessions.cached("s1") != nil }
    await one.stop()
    await two.stop()
  }

  /// A mark notified after a save (as a request's response sets it) covers the save: another
  /// instance that heard it serves the state saved, never the one it had cached.
  @Test func aMarkNotifiedAfterASaveCoversIt() async throws {
    let database = try await TestDatabase.make()
    let one = Instance(database)
    let two = Instance(try TestDatabase.another(database))
    let users = (
      one: UserStates(PostgresBackend(one.database, feed: one.feed)),
      two: UserStates(PostgresBackend(two.database, feed: two.feed))
    )
    try await Self.until { one.feed.isLive && two.feed.isLive }
    let user = UserID.random()
    for n in 1...20 {
      let served = try await ChangeFeed.$servesCached.withValue(true) { try await users.two.read(user) }
      #expect(served == (n == 1 ? nil : Data("state \(n - 1)".utf8)))
      try await users.one.update(user) { _ in (UserSave(state: Data("state \(n)".utf8)), ()) }
      let mark = await one.feed.mark()
      try await Self.until { two.feed.covers(mark: mark[...]) }
      let after = try await ChangeFeed.$servesCached.withValue(two.feed.covers(mark: mark[...])) { try await users.two.read(user) }
      #expect(after == Data("state \(n)".utf8))
    }
    let rows = try await database.query("SELECT count(*) FROM users").first?.decode(Int.self)
    #expect(rows == 1)
    await one.stop()
    await two.stop()
  }

  @Test func aMarkIsCoveredWhenHeardOrOldEnoughAndNothingIsWhileTheFeedIsNotHeard() async throws {
    let database = try await TestDatabase.make()
    let one = Instance(database)
    try await Self.until { one.feed.isLive }
    let now = Date()
    #expect(one.feed.covers(mark: nil))
    #expect(!one.feed.covers(mark: "\(String(UInt64(now.timeIntervalSince1970 * 1000), radix: 16))-1"), "made just now, not heard")
    #expect(one.feed.covers(mark: "\(String(UInt64((now.timeIntervalSince1970 - 60) * 1000), radix: 16))-1"), "a minute old")
    let mark = await one.feed.mark()
    try await Self.until { one.feed.covers(mark: mark[...]) }
    #expect(!one.feed.covers(mark: nil, now: Date().addingTimeInterval(10)), "the newest ping heard is too old: nothing is served")
    one.feed.hear("mark:" + ChangeFeed.newMark(), now: Date().addingTimeInterval(61))
    #expect(!one.feed.covers(mark: mark[...]), "a mark forgotten a minute after it was heard, too recent for its age to cover it")
    one.feed.reset(live: false)
    #expect(!one.feed.covers(mark: nil))
    await one.stop()
  }

  /// The feed's connection killed: nothing cached is served until it listens again, and what
  /// changed meanwhile (unheard) is read from the rows.
  @Test func aLostFeedServesNothingCachedUntilItListensAgain() async throws {
    let database = try await TestDatabase.make()
    let one = Instance(database)
    try await Self.until { one.feed.isLive }
    #expect(try await one.sessions.create("s1", Data(#"{"n":0}"#.utf8)))
    try await Self.until { try await one.read("s1") == #"{"n":0}"# && one.feed.sessions.cached("s1") != nil }
    try await database.query("ALTER TABLE sessions DISABLE TRIGGER sessions_changed")
    try await database.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(ChangeFeed.applicationName)"
    )
    try await Self.until { !one.feed.isLive }
    try await database.query(#"UPDATE sessions SET record = '{"n":1}', version = version + 1 WHERE id = 's1'"#)
    #expect(try await one.read("s1") == #"{"n":1}"#, "not served from the cache while the feed is lost")
    try await Self.until { one.feed.isLive }
    try await database.query(#"UPDATE sessions SET record = '{"n":2}', version = version + 1 WHERE id = 's1'"#)
    #expect(try await one.read("s1") == #"{"n":2}"#, "the cache was emptied when the feed came back")
    await one.stop()
  }
}

private final class Counter: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
