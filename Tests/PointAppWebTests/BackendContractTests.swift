import Foundation
@testable import PointAppWeb
import Synchronization
import Testing

/// The record layer's backends: tables, and holdings whose writes commit together. Each
/// guarantee on memory, files and PostgreSQL (on its shared test database, in two of its record
/// tables, each test with names of its own).
struct BackendContractTests {
  enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, files, postgres
    var testDescription: String { rawValue }

    func backend() async throws -> any RecordBackend {
      switch self {
      case .memory: MemoryBackend()
      case .files: try FileBackend(Self.folder())
      case .postgres: PostgresBackend(try await TestDatabase.database())
      }
    }

    static func folder() -> URL {
      scratch("backend")
    }
  }

  struct Failure: Error {}

  /// JSON, as every record is (PostgreSQL keeps them as JSON).
  static func record(_ number: Int) -> Data { Data(#"{"n":\#(number)}"#.utf8) }
  static func number(_ data: Data?) throws -> Int? {
    try data.map { try JSONDecoder().decode([String: Int].self, from: $0)["n"]! }
  }

  @Test(arguments: Kind.allCases)
  func writesInsideAHoldingCommitTogetherAndAreSeenInside(kind: Kind) async throws {
    let backend = try await kind.backend()
    let (first, second) = (try backend.table(.sessions), try backend.table(.accounts))
    let id = UUID().uuidString.lowercased()
    try await backend.holding("pair-\(id)") { () async throws in
      #expect(try await first.create("\(id)-a", Self.record(1)))
      #expect(try await second.create("\(id)-b", Self.record(2)))
      #expect(try await Self.number(first.read("\(id)-a")?.data) == 1, "a holding reads what it wrote")
      #expect(try await first.replace("\(id)-a", Self.record(3), at: 1))
      #expect(try await first.create("\(id)-a", Self.record(4)) == false, "written already")
    }
    #expect(try await Self.number(first.read("\(id)-a")?.data) == 3)
    #expect(try await Self.number(second.read("\(id)-b")?.data) == 2)
    #expect(try await first.replace("\(id)-a", Self.record(5), at: try #require(try await first.read("\(id)-a")).version))
  }

  @Test(arguments: Kind.allCases)
  func aHoldingThatThrowsWritesNothing(kind: Kind) async throws {
    let backend = try await kind.backend()
    let (first, second) = (try backend.table(.sessions), try backend.table(.accounts))
    let id = UUID().uuidString.lowercased()
    #expect(try await second.create("\(id)-kept", Self.record(1)))
    await #expect(throws: Failure.self) {
      try await backend.holding("pair-\(id)") { () async throws in
        #expect(try await first.create("\(id)-new", Self.record(1)))
        #expect(try await second.replace("\(id)-kept", Self.record(2), at: 1))
        throw Failure()
      }
    }
    #expect(try await first.read("\(id)-new") == nil)
    let kept = try #require(try await second.read("\(id)-kept"))
    #expect(try Self.number(kept.data) == 1 && kept.version == 1)
  }

  /// Sixteen holders of one key, each reading a counter and writing it one higher at the version
  /// read: none loses, since none reads while another holds the key.
  @Test(arguments: Kind.allCases)
  func holdersOfOneKeyTakeTurns(kind: Kind) async throws {
    let backend = try await kind.backend()
    let table = try backend.table(.sessions)
    let name = "counter-" + UUID().uuidString.lowercased()
    #expect(try await table.create(name, Self.record(0)))
    let written = try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<16 {
        group.addTask {
          try await backend.holding(name) { () async throws in
            let read = try #require(try await table.read(name))
            return try await table.replace(name, Self.record(try Self.number(read.data)! + 1), at: read.version)
          }
        }
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(written == Array(repeating: true, count: 16))
    #expect(try await Self.number(table.read(name)?.data) == 16)
  }

  /// A record a holding read for update is its own until the holding ends: a writer from outside
  /// waits, then finds the version moved and reads again; both changes land.
  @Test(arguments: Kind.allCases)
  func aRecordReadForUpdateIsHeldUntilTheHoldingEnds(kind: Kind) async throws {
    let backend = try await kind.backend()
    let table = try backend.table(.sessions)
    let name = "held-" + UUID().uuidString.lowercased()
    #expect(try await table.create(name, Self.record(0)))
    // The outside writer reads once the holder has read, and the holder writes once the outside
    // writer has read (then after a while, for its write to come between if nothing holds it):
    // no guessed head start, which a busy machine can outlast.
    let (heldSignal, held) = AsyncStream<Void>.makeStream()
    let (seenSignal, seen) = AsyncStream<Void>.makeStream()
    let (inside, outside) = try await withThrowingTaskGroup(of: (Bool?, Int?).self) { group in
      group.addTask {
        let replaced = try await backend.holding("holder-\(name)") { () async throws in
          let read = try #require(try await table.readForUpdate(name))
          held.yield()
          for await _ in seenSignal { break }
          try await Task.sleep(for: .milliseconds(300))
          return try await table.replace(name, Self.record(try Self.number(read.data)! + 1), at: read.version)
        }
        return (replaced, nil)
      }
      group.addTask {
        for await _ in heldSignal { break }
        var tries = 0
        while true {
          tries += 1
          let read = try #require(try await table.read(name))
          seen.yield()
          if try await table.replace(name, Self.record(try Self.number(read.data)! + 10), at: read.version) { return (nil, tries) }
        }
      }
      var results: (Bool?, Int?) = (nil, nil)
      for try await (replaced, tries) in group {
        if let replaced { results.0 = replaced }
        if let tries { results.1 = tries }
      }
      return results
    }
    #expect(inside == true, "the holder's write at the version it read is not lost to one that came between")
    #expect(outside == 2, "the outside writer waited, lost once and read again")
    #expect(try await Self.number(table.read(name)?.data) == 11)
  }

  /// A holding inside a holding joins it: its writes go with the outer one's, and its key is held
  /// until the outer one ends.
  @Test(arguments: Kind.allCases)
  func aHoldingInsideAHoldingJoinsIt(kind: Kind) async throws {
    let backend = try await kind.backend()
    let table = backend.table(.sessions)
    let id = UUID().uuidString.lowercased()
    final class Events: Sendable { let list = Mutex<[String]>([]) }
    let log = Events()
    await #expect(throws: Failure.self) {
      try await backend.holding("outer-\(id)") { () async throws in
        try await backend.holding("inner-\(id)") { () async throws in
          #expect(try await table.create("\(id)-inner", Self.record(1)))
        }
        // Another holder of the inner key (a task of its own: one started inside would take part
        // in the holding) waits for the outer holding's end.
        let other = Task.detached {
          try await backend.holding("inner-\(id)") { log.list.withLock { $0.append("other") } }
        }
        try await Task.sleep(for: .milliseconds(200))
        log.list.withLock { $0.append("outer ends") }
        _ = other
        throw Failure()
      }
    }
    for _ in 0..<500 where log.list.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
    #expect(log.list.withLock { $0 } == ["outer ends", "other"])
    #expect(try await table.read("\(id)-inner") == nil, "the inner writes went with the outer holding")
  }

  /// A holding of a key its holding holds already joins it, rather than waiting for itself.
  @Test(arguments: Kind.allCases)
  func aHoldingOfAKeyHeldAlreadyJoins(kind: Kind) async throws {
    let backend = try await kind.backend()
    let table = backend.table(.sessions)
    let id = UUID().uuidString.lowercased()
    try await backend.holding("same-\(id)") { () async throws in
      try await backend.holding("other-\(id)") { () async throws in
        try await backend.holding("same-\(id)") { () async throws in
          #expect(try await table.create("\(id)-again", Self.record(1)))
        }
      }
    }
    #expect(try await Self.number(table.read("\(id)-again")?.data) == 1)
    // Let go at the end: another holding of the key goes ahead.
    try await backend.holding("same-\(id)") { () async throws in }
  }

  /// Files shared by two processes (two backends on one folder here): their holdings of one key
  /// take turns, the second waiting until the first has ended (a key free is taken at once, one
  /// held is waited for on a file thread).
  @Test func onFilesTwoProcessesHoldingsOfOneKeyTakeTurns() async throws {
    let folder = Kind.folder()
    let (here, there) = (try FileBackend(folder), try FileBackend(folder))
    let order = Mutex<[String]>([])
    let (holding, holds) = AsyncStream.makeStream(of: Void.self)
    let first = Task {
      try await there.holding("k") { () async throws in
        order.withLock { $0.append("there begins") }
        holds.yield()
        try await Task.sleep(for: .milliseconds(300))
        order.withLock { $0.append("there ends") }
      }
    }
    for await _ in holding { break }
    try await here.holding("k") { () async throws in order.withLock { $0.append("here") } }
    try await first.value
    #expect(order.withLock { $0 } == ["there begins", "there ends", "here"])
    // Free again: taken at once.
    try await here.holding("k") { () async throws in order.withLock { $0.append("here again") } }
    #expect(order.withLock { $0 }.last == "here again")
  }

  /// Files shared by two processes (two backends on one folder here): a record that the other
  /// process changed between a holding's first touch and its commit makes the commit fail, and
  /// nothing of it is written.
  @Test func onFilesAnotherProcessesChangeMeanwhileFailsTheCommitWhole() async throws {
    let folder = Kind.folder()
    let (here, there) = (try FileBackend(folder), try FileBackend(folder))
    let (mine, shared) = (here.table(.accounts), here.table(.sessions))
    #expect(try await shared.create("shared", Self.record(0)))
    await #expect(throws: RecordConflict.self) {
      try await here.holding("k") { () async throws in
        #expect(try await mine.create("mine", Self.record(1)))
        let read = try #require(try await shared.readForUpdate("shared"))
        #expect(try await there.table(.sessions).replace("shared", Self.record(7), at: read.version))
        #expect(try await shared.replace("shared", Self.record(1), at: read.version))
      }
    }
    #expect(try await mine.read("mine") == nil)
    #expect(try await Self.number(shared.read("shared")?.data) == 7)
  }

  /// A commit of several records whose write is refused (a full disk) after its intent was
  /// durable is finished before any other commit: at once if the refusal has passed (the holding
  /// succeeds), else by the next commit, which is refused while it cannot be. Nothing ever
  /// commits over half of it.
  @Test func onFilesACommitCutShortByARefusedWriteIsFinishedBeforeAnyOther() async throws {
    let backend = try FileBackend(Kind.folder())
    let (sessions, accounts) = (backend.table(.sessions), backend.table(.accounts))
    let id = UUID().uuidString.lowercased()
    @Sendable func commit(_ names: [(any RecordStorage, String)]) async throws {
      try await backend.holding("k") { () async throws in
        for (table, name) in names { #expect(try await table.create(name, Self.record(1))) }
      }
    }
    FileBackend.refusals.withLock { $0["\(id)-b"] = 1 }
    try await commit([(sessions, "\(id)-a"), (accounts, "\(id)-b")])
    #expect(try await accounts.read("\(id)-b") != nil, "refused once, finished at once")

    FileBackend.refusals.withLock { $0["\(id)-d"] = 3 }
    await #expect(throws: FileError.self) { try await commit([(sessions, "\(id)-c"), (accounts, "\(id)-d")]) }
    #expect(try await sessions.read("\(id)-c") != nil, "half of it, for now")
    #expect(try await accounts.read("\(id)-d") == nil)
    await #expect(throws: FileError.self) { try await commit([(sessions, "\(id)-e")]) }
    #expect(try await sessions.read("\(id)-e") == nil, "nothing commits while it cannot be finished")
    try await commit([(sessions, "\(id)-f")])
    #expect(try await accounts.read("\(id)-d") != nil, "finished first")
    #expect(try await sessions.read("\(id)-f") != nil)
  }

  /// Commits that a crash cut short once they were durable in their process's log (some records
  /// written, some not) are finished by the next start: records still at their version before
  /// the commit are written; one written already, or changed since, is left. A commit marked
  /// applied is left whole (a record it deleted was made again since), so is one whose blanking
  /// the crash tore (marked or not, its checksum fails), and a frame cut short ends the log.
  @Test func onFilesCommitsInALogLeftByACrashAreFinishedAtStart() async throws {
    let folder = Kind.folder()
    let backend = try FileBackend(folder)
    let sessions = backend.table(.sessions)
    #expect(try await sessions.create("kept", Self.record(1)))
    #expect(try await sessions.create("made-again", Self.record(5)))
    #expect(try await sessions.create("made-again-too", Self.record(6)))
    typealias Change = FileBackend.Intended
    /// As this program writes it, or as an earlier one did (JSON).
    func frame(_ changes: [Change], applied: Bool = false, json: Bool = false) throws -> Data {
      var frame = CommitLog.frame(json ? try JSONEncoder().encode(changes) : Change.body(changes))
      if applied { frame[frame.startIndex] = 1 }
      return frame
    }
    var log = try frame([Change(folder: "sessions", name: "made-again", base: 1, version: nil, data: nil)], applied: true)
    log += try frame([Change(folder: "accounts", name: "earlier", base: nil, version: 1, data: Self.record(7))], json: true)
    var blanking = try frame([Change(folder: "sessions", name: "made-again-too", base: 1, version: nil, data: nil)])
    blanking.replaceSubrange((blanking.startIndex + 20)..<blanking.endIndex, with: Data(count: blanking.count - 20))
    log += blanking
    log += try frame([
      Change(folder: "sessions", name: "kept", base: 1, version: 2, data: Self.record(2)),
      Change(folder: "accounts", name: "new", base: nil, version: 1, data: Self.record(3)),
    ])
    let torn = try frame([Change(folder: "sessions", name: "torn", base: nil, version: 1, data: Self.record(4))])
    log += torn.prefix(torn.count - 3)
    try log.write(to: folder.appendingPathComponent(".commits/crashed.log"))
    let restarted = try FileBackend(folder)
    #expect(try await Self.number(restarted.table(.sessions).read("kept")?.data) == 2)
    #expect(try await Self.number(restarted.table(.accounts).read("new")?.data) == 3)
    #expect(try await Self.number(restarted.table(.accounts).read("earlier")?.data) == 7, "an earlier program's frame")
    #expect(try await Self.number(restarted.table(.sessions).read("made-again")?.data) == 5, "an applied commit is not applied again")
    #expect(try await Self.number(restarted.table(.sessions).read("made-again-too")?.data) == 6, "nor one half blanked")
    #expect(try await restarted.table(.sessions).read("torn") == nil)
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".commits/crashed.log").path))
  }

  /// A process's counts' shards (its own records of `RecordKind.countShards`) are written a
  /// moment after the commits that change them, read from memory meanwhile; a kill meanwhile
  /// leaves them in its log, and the next start writes them (its log's frames hold the records'
  /// changes only: the commits' own frames are blanked as ever).
  @Test func onFilesAProcessesOwnCountsAreWrittenAMomentLaterOrByTheNextStart() async throws {
    let folder = Kind.folder()
    let backend = try FileBackend(folder, flushEvery: .seconds(3600))
    let own = try #require((backend.table(.responses) as? FileRecordStorage)?.countShards?.own)
    let (shards, sessions) = (backend.table(.countShards), backend.table(.sessions))
    let (name, file) = ("s~" + own, folder.appendingPathComponent("count-shards/s~\(own).json").path)
    for number in 1...3 {
      try await backend.holding("k") {
        let written = try await number == 1 ? shards.create(name, Self.record(1)) : shards.replace(name, Self.record(number), at: Int64(number - 1))
        #expect(written)
        #expect(try await sessions.create("address-\(number)", Data(#"{"e":"hanako@example.jp"}"#.utf8)))
      }
    }
    let held = try await shards.read(name)
    #expect(try Self.number(held?.data) == 3 && held?.version == 3, "read from memory")
    #expect(!FileManager.default.fileExists(atPath: file), "not written yet")
    let copy = scratch("backend-killed")
    try FileManager.default.copyItem(at: folder, to: copy)
    let logged = try FileManager.default.contentsOfDirectory(atPath: copy.appendingPathComponent(".commits").path).map {
      try CommitLog.unapplied(in: Data(contentsOf: copy.appendingPathComponent(".commits/\($0)"))).flatMap { try FileBackend.Intended.changes(from: $0) }
    }
    #expect(logged.joined().map(\.folder) == ["count-shards", "count-shards", "count-shards"], "the sessions' bytes are not in the log")
    let restarted = try FileBackend(copy)
    let written = try await restarted.table(.countShards).read(name)
    #expect(try Self.number(written?.data) == 3 && written?.version == 3)
    try await backend.flushDeferred()
    #expect(try FileRecordStorage.version(at: file) == 3)
    #expect(try await Self.number(try FileBackend(folder).table(.countShards).read(name)?.data) == 3, "another process reads the file")
  }

  /// The log starts again, past its limit, while commits come from all sides and their counts
  /// wait in memory: those are written first, and none is lost (a kill then leaves their last
  /// changes in the log, which the next start writes).
  @Test(.timeLimit(.minutes(1)))
  func onFilesTheLogStartsAgainWithTheCountsHeldInMemoryWrittenFirst() async throws {
    let folder = Kind.folder()
    let backend = try FileBackend(folder, flushEvery: .seconds(3600), logLimit: 4_096)
    let own = try #require((backend.table(.responses) as? FileRecordStorage)?.countShards?.own)
    let (shards, sessions) = (backend.table(.countShards), backend.table(.sessions))
    let bulk = Data(#"{"n":0,"padding":"\#(String(repeating: "x", count: 600))"}"#.utf8)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for writer in 0..<8 {
        group.addTask {
          for number in 1...30 {
            try await backend.holding("writer \(writer)") {
              let name = "s\(writer)~" + own
              let written = try await number == 1 ? shards.create(name, Self.record(1)) : shards.replace(name, Self.record(number), at: Int64(number - 1))
              #expect(written)
              #expect(try await sessions.create("w\(writer)-\(number)", bulk))
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let log = try #require(FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".commits").path).first { $0.hasSuffix(".log") })
    let size = try #require(FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(".commits/\(log)").path)[.size] as? Int)
    #expect(size < 40_000, "started again (else some 170 kB): \(size) bytes")
    let copy = scratch("backend-killed")
    try FileManager.default.copyItem(at: folder, to: copy)
    let restarted = try FileBackend(copy)
    for writer in 0..<8 {
      #expect(try await Self.number(shards.read("s\(writer)~" + own)?.data) == 30)
      #expect(try await Self.number(restarted.table(.countShards).read("s\(writer)~" + own)?.data) == 30)
    }
  }

  /// A commit's body as the log keeps it reads back as the same changes, whichever of base,
  /// version and data each has; a body cut short or with a byte it does not know is refused.
  @Test func aCommitsBodyReadsBackAsItsChanges() throws {
    typealias Change = FileBackend.Intended
    let changes = [
      Change(folder: "users", name: "u-1", base: 3, version: 4, data: Data("{\"e\":\"たろう@example.jp\"}".utf8)),
      Change(folder: "responses", name: "s~r-1", base: nil, version: 1, data: Data()),
      Change(folder: "sessions", name: "gone", base: 9, version: nil, data: nil),
    ]
    let body = Change.body(changes)
    #expect(try Change.changes(from: body) == changes)
    #expect(try Change.changes(from: JSONEncoder().encode(changes)) == changes, "an earlier program's")
    #expect(throws: FileError.self) { try Change.changes(from: body.dropLast()) }
    var unknown = body
    unknown[unknown.startIndex + 5 + 4 + 5 + 4 + 3] = 8
    #expect(throws: FileError.self) { try Change.changes(from: unknown) }
  }

  /// An earlier program's commit that a crash cut short after its intent was durable (its intent
  /// left, some records written, some not) is finished by the next start: records still at their
  /// version before the commit are written; one written already, or changed since, is left.
  @Test func onFilesAnInterruptedCommitIsFinishedAtStart() async throws {
    let folder = Kind.folder()
    let backend = try FileBackend(folder)
    let (sessions, accounts) = (backend.table(.sessions), backend.table(.accounts))
    #expect(try await sessions.create("written", Self.record(2)))  // the commit's write, made: version 1
    #expect(try await accounts.create("moved", Self.record(9)))
    #expect(try await accounts.replace("moved", Self.record(9), at: 1))  // changed since: version 2
    struct Intended: Encodable { var folder: String; var name: String; var base: Int64?; var version: Int64?; var data: Data? }
    let intent = [
      Intended(folder: "sessions", name: "written", base: nil, version: 1, data: Self.record(2)),
      Intended(folder: "sessions", name: "missing", base: nil, version: 1, data: Self.record(3)),
      Intended(folder: "accounts", name: "moved", base: 1, version: 2, data: Self.record(4)),
    ]
    try JSONEncoder().encode(intent).write(to: folder.appendingPathComponent(".commits/interrupted.intent"))
    try Data("[{\"fol".utf8).write(to: folder.appendingPathComponent(".commits/torn.intent"))
    let restarted = try FileBackend(folder)
    #expect(try await Self.number(restarted.table(.sessions).read("missing")?.data) == 3)
    #expect(try await restarted.table(.sessions).read("written")?.version == 1)
    #expect(try await Self.number(restarted.table(.accounts).read("moved")?.data) == 9)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(".commits").path).filter { !$0.hasSuffix(".log") }.isEmpty)
  }
}
