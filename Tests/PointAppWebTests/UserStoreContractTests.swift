import Foundation
import PointApp
import Synchronization
import Testing

@testable import PointAppWeb

/// What the contract calls on a user store: `UserStates`, or it read as an instance serves it.
protocol UserStore: Sendable {
  func update<Result: Sendable>(
    _ user: UserID, _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result
  func read(_ user: UserID) async throws -> Data?
  func archived(_ names: [String], of user: UserID) async throws -> [String: Data]
}

extension UserStates: UserStore {}

extension StoreKind {
  /// Users' states on a backend of this kind, and a second on the same data where there can be
  /// one (another process on the folder, another instance on the database).
  func userStores() async throws -> (any UserStore, (any UserStore)?) {
    switch self {
    case .memory:
      return (UserStates(MemoryBackend()), nil)
    case .files:
      let folder = scratch("users")
      return (UserStates(try FileBackend(folder)), UserStates(try FileBackend(folder)))
    case .postgres:
      let database = try await TestDatabase.database()
      return (UserStates(PostgresBackend(database)), UserStates(PostgresBackend(try TestDatabase.another(database))))
    case .cachedPostgres:
      let database = try await TestDatabase.database()
      let cached = UserStates(PostgresBackend(database, feed: try await SharedFeed.live.value))
      return (ServedCachedUsers(base: cached), UserStates(PostgresBackend(try TestDatabase.another(database))))
    }
  }

  /// The user stores' kinds, and PostgreSQL's as an instance reads it through its cache.
  static let testedUsers = tested + [.cachedPostgres]
}

/// As `ServedCached`, for users' states: each read twice, the second from the cache.
struct ServedCachedUsers: UserStore {
  let base: UserStates

  func update<Result: Sendable>(
    _ user: UserID, _ body: @Sendable (Data?) async throws -> (save: UserSave?, result: Result)
  ) async throws -> Result {
    try await ChangeFeed.$servesCached.withValue(true) { try await base.update(user, body) }
  }

  func read(_ user: UserID) async throws -> Data? {
    try await ChangeFeed.$servesCached.withValue(true) {
      _ = try await base.read(user)
      return try await base.read(user)
    }
  }

  func archived(_ names: [String], of user: UserID) async throws -> [String: Data] {
    try await ChangeFeed.$servesCached.withValue(true) { try await base.archived(names, of: user) }
  }
}

struct Failure: Error {}

/// What every user store guarantees: the file store, PostgreSQL and the in-memory one alike.
struct UserStoreContractTests {
  @Test(arguments: StoreKind.testedUsers)
  func aSaveReadsBackWithItsArchive(kind: StoreKind) async throws {
    let (store, _) = try await kind.userStores()
    let user = UserID.random()
    #expect(try await store.read(user) == nil)
    let state = Data(#"{"n":1}"#.utf8)
    let archive = ["ledger-0": Data("zero".utf8), "answer-61": Data("a".utf8)]
    let seen = try await store.update(user) { saved in (UserSave(archive: archive, state: state), saved) }
    #expect(seen == nil)
    #expect(try await store.read(user) == state)
    #expect(try await store.archived(["ledger-0", "ledger-20", "answer-61"], of: user) == archive)
    #expect(try await store.archived(["ledger-0"], of: .random()) == [:])
    // A later save replaces the state and adds to the archive.
    let next = Data(#"{"n":2}"#.utf8)
    let before = try await store.update(user) { saved in (UserSave(archive: ["ledger-20": Data("twenty".utf8)], state: next), saved) }
    #expect(before == state)
    #expect(try await store.read(user) == next)
    #expect(try await store.archived(["ledger-0", "ledger-20"], of: user).count == 2)
  }

  /// A save's `before` (the responses of the answers it saves) is done before the state is saved;
  /// when it fails, the update fails and the state stays as it was.
  @Test(arguments: StoreKind.testedUsers)
  func whatASaveDependsOnIsDoneFirstOrTheSaveIsNot(kind: StoreKind) async throws {
    let (store, _) = try await kind.userStores()
    let user = UserID.random()
    try await store.update(user) { _ in (UserSave(state: Data("first".utf8)), ()) }
    let seen = Mutex<Data?>(nil)
    var save = UserSave(state: Data("second".utf8))
    save.before = { seen.withLock { $0 = Data("done".utf8) } }
    try await store.update(user) { [save] _ in (save, ()) }
    #expect(seen.withLock { $0 } == Data("done".utf8))
    #expect(try await store.read(user) == Data("second".utf8))
    let failing = {
      var save = UserSave(state: Data("third".utf8))
      save.before = { throw Failure() }
      return save
    }()
    await #expect(throws: Failure.self) { try await store.update(user) { _ in (failing, ()) } }
    #expect(try await store.read(user) == Data("second".utf8))
  }

  @Test(arguments: StoreKind.testedUsers)
  func anUpdateThatSavesNothingOrFailsChangesNothing(kind: StoreKind) async throws {
    let (store, _) = try await kind.userStores()
    let user = UserID.random()
    try await store.update(user) { _ in (nil, ()) }
    #expect(try await store.read(user) == nil)
    try await store.update(user) { _ in (UserSave(state: Data("kept".utf8)), ()) }
    await #expect(throws: Failure.self) {
      try await store.update(user) { _ -> (save: UserSave?, result: Void) in throw Failure() }
    }
    #expect(try await store.read(user) == Data("kept".utf8))
    #expect(try await store.archived(["ledger-0"], of: user) == [:])
  }

  /// 40 increments of one user's counter at once, through two stores on the same data where
  /// there are two: none is lost, so their updates never overlapped.
  @Test(arguments: StoreKind.testedUsers)
  func oneUsersUpdatesNeverOverlapAcrossStores(kind: StoreKind) async throws {
    let (here, there) = try await kind.userStores()
    let user = UserID.random()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 0..<40 {
        let store = number.isMultiple(of: 2) ? here : (there ?? here)
        group.addTask {
          try await store.update(user) { saved in
            let count = saved.map { Int(String(decoding: $0, as: UTF8.self))! } ?? 0
            try await Task.sleep(for: .milliseconds(1))
            return (UserSave(state: Data(String(count + 1).utf8)), ())
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try await here.read(user) == Data("40".utf8))
    #expect(try await (there ?? here).read(user) == Data("40".utf8))
  }

  /// A page view's read does not wait for the user's update in progress: it sees the state saved
  /// before it, whole.
  @Test(arguments: StoreKind.testedUsers)
  func aReadDoesNotWaitForAnUpdate(kind: StoreKind) async throws {
    let (store, _) = try await kind.userStores()
    let user = UserID.random()
    try await store.update(user) { _ in (UserSave(state: Data("old".utf8)), ()) }
    let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
    let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
    async let slow: Void = store.update(user) { _ in
      startedSignal.yield()
      for await _ in release { break }
      return (UserSave(state: Data("new".utf8)), ())
    }
    for await _ in started { break }
    #expect(try await store.read(user) == Data("old".utf8))
    releaseSignal.yield()
    try await slow
    #expect(try await store.read(user) == Data("new".utf8))
  }
}
