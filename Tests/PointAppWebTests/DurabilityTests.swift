import Foundation
import Testing

@testable import PointAppWeb

/// A write interrupted between any two of its steps leaves the old file or the new one, whole.
struct DurabilityTests {
  func folder() throws -> URL {
    let url = scratch("durable")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test(arguments: DurableFile.Step.allCases)
  func aFailureBeforeAnyStepLeavesOldOrNew(step: DurableFile.Step) throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("user.json").path
    let old = Data(#"{"version":"old"}"#.utf8)
    let new = Data(#"{"version":"new","more":"bytes"}"#.utf8)
    try DurableFile.write(old, to: path)

    #expect(throws: FileError.self) { try DurableFile.write(new, to: path, failBefore: step) }

    let survivor = try #require(try DurableFile.read(path))
    // Until the rename the old file stands; from the rename on, the new one does.
    #expect(survivor == (step == .syncFolder ? new : old))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["user.json"], "no temporary file is left")
  }

  /// Holdings committing at the same moment share the fsyncs of the log: 64 at once take far
  /// fewer than 64 (on a disk whose fsyncs take 20 ms: those of a RAM disk take none).
  @Test func commitsAtOnceShareTheirSyncs() async throws {
    let backend = try FileBackend(try folder())
    backend.slowLogSyncs(by: .milliseconds(20))
    let table = backend.table(.sessions)
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for number in 0..<64 {
        group.addTask { try await backend.holding("k-\(number)") { try await table.create("r-\(number)", Data("{}".utf8)) } }
      }
      for try await created in group { #expect(created) }
    }
    #expect(try await table.names(after: nil, limit: 100).count == 64)
    let syncs = backend.logSyncs
    #expect(syncs >= 1 && syncs < 32, "\(syncs) syncs of the log for 64 commits")
  }

  /// A temporary file lies beside its file, named as a start's clean-up looks for them.
  @Test func aTemporaryFileIsBesideItsFile() throws {
    let folder = try folder()
    let temporary = try DurableFile.writeTemporary(Data("x".utf8), for: folder.appendingPathComponent("user.json").path, sync: false)
    defer { unlink(temporary) }
    let (into, name) = DurableFile.split(temporary)
    #expect(into == folder.path[...])
    #expect(name.hasPrefix(".user.json.") && name.hasSuffix(".tmp"))
    #expect(DurableFile.split("user.json") == (".", "user.json"))
    #expect(DurableFile.split("/user.json") == ("/", "user.json"))
  }

  @Test func aFirstWriteThatFailsLeavesNoFile() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("user.json").path
    #expect(throws: FileError.self) { try DurableFile.write(Data("x".utf8), to: path, failBefore: .rename) }
    #expect(try DurableFile.read(path) == nil)
  }

  @Test func temporaryFilesAbandonedByACrashAreRemovedAtStartOnly() throws {
    let folder = try folder()
    let abandoned = [folder.appendingPathComponent(".a.json.1.tmp"), folder.appendingPathComponent(".ledger-0.json.2.tmp")]
    let inProgress = folder.appendingPathComponent(".b.json.3.tmp")
    let user = folder.appendingPathComponent("0123456789abcdef0123456789abcdef.json")
    for file in abandoned + [inProgress, user] { try Data("x".utf8).write(to: file) }
    for file in abandoned {
      try FileManager.default.setAttributes([.modificationDate: Date() - 120], ofItemAtPath: file.path)
    }

    _ = try FileRecordStorage(folder)

    #expect(abandoned.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    #expect(FileManager.default.fileExists(atPath: inProgress.path), "a young one may be another process's write")
    #expect(FileManager.default.fileExists(atPath: user.path))
  }

  @Test func writeErrorsAreThrownNotSwallowed() throws {
    #expect(throws: FileError.self) {
      try DurableFile.write(Data("x".utf8), to: "/nonexistent-folder-\(UUID().uuidString)/user.json")
    }
  }

  @Test func aFileLargerThanOneReadIsReadWhole() throws {
    let path = try folder().appendingPathComponent("user.json").path
    let data = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
    try DurableFile.write(data, to: path)
    #expect(try DurableFile.read(path) == data)
  }
}

/// A record read on an event loop: only what the kernel holds in memory, whole, or nothing.
struct InMemoryReadTests {
  func file(_ data: Data) throws -> String {
    let folder = scratch("in-memory")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("record.json").path
    try DurableFile.write(data, to: path)
    return path
  }

  @Test func aFileJustWrittenIsReadWholeWithItsVersion() throws {
    for data in [Data(#"{"version":3,"record":{"balance":100}}"#.utf8), Data(), Data(repeating: 7, count: 70_000)] {
      let path = try file(data)
      guard case let .read(read, version) = DurableFile.readIfInMemory(path) else {
        Issue.record("a file just written is in memory")
        continue
      }
      #expect(read == data)
      #expect(version == FileVersion(path: path))
    }
  }

  /// A large file is left to a file thread: its copy would hold an event loop up.
  @Test func aFileOverTheLimitIsLeftToAFileThread() throws {
    let path = try file(Data(repeating: 1, count: DurableFile.inMemoryLimit + 1))
    guard case .notInMemory = DurableFile.readIfInMemory(path) else {
      Issue.record("a file over the limit is read on a file thread")
      return
    }
    #expect(try DurableFile.read(path)?.count == DurableFile.inMemoryLimit + 1)
  }

  @Test func noFileIsMissing() throws {
    let path = scratch("in-memory").appendingPathComponent("none.json").path
    guard case .missing = DurableFile.readIfInMemory(path) else {
      Issue.record("no file reads as missing")
      return
    }
  }

  /// A record whose end the kernel has let go of is not read in part: it is left to a file
  /// thread, whose read gives every byte.
  @Test func aRecordPartlyOutOfMemoryIsNotReadInPart() async throws {
    let record = Data(("\"" + String(repeating: "ポイント", count: 30_000) + "\"").utf8)
    let path = try file(Data(#"{"version":4,"record":"#.utf8) + record + Data("}".utf8))
    let fd = open(path, O_RDONLY)
    #expect(posix_fadvise(fd, 150_000, 0, POSIX_FADV_DONTNEED) == 0)
    close(fd)
    switch DurableFile.readIfInMemory(path) {
    case .notInMemory: break
    case let .read(read, _): #expect(read == (try DurableFile.read(path)), "a file system that keeps every page (tmpfs) gives it whole")
    case .missing: Issue.record("the file is there")
    }
    let storage = try FileRecordStorage(URL(fileURLWithPath: path).deletingLastPathComponent())
    let read = try #require(try await storage.read("record"))
    #expect(read.data == record && read.version == 4)
  }

  /// What is not a plain file (a FIFO, which an open for reading would wait on) is not read on
  /// the caller's thread.
  @Test(.timeLimit(.minutes(1))) func aFIFOIsNotOpenedToWait() throws {
    let path = scratch("in-memory").appendingPathComponent("fifo.json").path
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    #expect(mkfifo(path, 0o600) == 0)
    guard case .notInMemory = DurableFile.readIfInMemory(path) else {
      Issue.record("a FIFO is left to a file thread")
      return
    }
  }
}

/// A page view's read of a record it read before (a user's state) is answered from a `stat`; it must still see every
/// change made by anyone else (another server on the folder, a person editing the file).
struct RecentReadTests {
  let user = UserID("0123456789abcdef0123456789abcdef")!

  func store() throws -> (Store, path: String) {
    let folder = scratch("recent")
    let store = try FileRecordStorage(folder)
    return (Store(records: store, user: user), store.path(user.rawValue))
  }

  /// The records of a folder, as the users' states are kept.
  struct Store {
    let records: FileRecordStorage
    let user: UserID
    func read(_ user: UserID) async throws -> Data? { try await records.read(user.rawValue)?.data }
  }

  /// Writes `first`, lets it settle and reads it, so that the next read may be answered by a stat.
  func readSettled(_ first: Data, _ store: Store, at path: String) async throws {
    try DurableFile.write(first, to: path)
    try await Task.sleep(for: .milliseconds(80))
    #expect(try await store.read(user) == first)
    #expect(try await store.read(user) == first)
  }

  @Test func aFileReplacedByAnotherWriterIsReadAgain() async throws {
    let (store, path) = try store()
    try await readSettled(Data(#"{"balance":100}"#.utf8), store, at: path)
    let second = Data(#"{"balance":900}"#.utf8)  // the same size
    try DurableFile.write(second, to: path)
    #expect(try await store.read(user) == second)
  }

  @Test func aFileChangedInPlaceIsReadAgain() async throws {
    let (store, path) = try store()
    try await readSettled(Data(#"{"balance":100}"#.utf8), store, at: path)
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.write(contentsOf: Data(#"{"balance":555}"#.utf8))  // same size, same file
    try handle.close()
    #expect(try await store.read(user) == Data(#"{"balance":555}"#.utf8))
  }

  @Test func aRemovedFileReadsAsNoState() async throws {
    let (store, path) = try store()
    try await readSettled(Data(#"{"balance":100}"#.utf8), store, at: path)
    try FileManager.default.removeItem(atPath: path)
    #expect(try await store.read(user) == nil)
  }
}

/// The caches of users' states keep the users being served, and no more than they are told to.
struct RecentlyUsedTests {
  @Test func anEntryInUseStaysWhileManyOthersComeAndGo() {
    var recent = RecentlyUsed<Int, String>(generation: 4)
    recent[-1] = "busy"
    for key in 0..<1_000 {
      recent[key] = "\(key)"
      #expect(recent[-1] == "busy")
    }
  }

  @Test func anEntryNobodyAsksForIsDroppedAfterTwoGenerations() {
    var recent = RecentlyUsed<Int, String>(generation: 4)
    recent[-1] = "idle"
    for key in 0..<4 { recent[key] = "\(key)" }
    #expect(recent[-1] == "idle", "still in the older generation, and moved back by this read")
    for key in 4..<13 { recent[key] = "\(key)" }
    #expect(recent[-1] == nil)
    #expect(recent[12] == "12")
  }
}
