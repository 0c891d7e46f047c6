import Foundation
import Testing

@testable import PointAppWeb

/// The journal behind the responses pending (`JournalRecordStorage`) across restarts: what was
/// acknowledged comes back, what a crash cut short does not, and it does not grow for ever.
struct JournalRecordStorageTests {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-journal-\(UUID().uuidString)")

  func segments() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("journal-") }.sorted()
  }

  @Test func whatWasWrittenComesBackAtTheNextStartWithItsVersion() async throws {
    do {
      let journal = try JournalRecordStorage(folder)
      #expect(try await journal.create("a", Data("one".utf8)))
      #expect(try await journal.create("b", Data("two".utf8)))
      #expect(try await journal.replace("a", Data("three".utf8), at: 1))
      #expect(try await journal.delete("b", at: 1))
    }
    let reopened = try JournalRecordStorage(folder)
    #expect(try await reopened.read("a")?.data == Data("three".utf8))
    #expect(try await reopened.read("a")?.version == 2)
    #expect(try await reopened.read("b") == nil)
    #expect(try await reopened.names(after: nil, limit: 10) == ["a"])
  }

  /// A frame cut short by a crash (its write never acknowledged) ends its segment; what comes
  /// after the next start is appended to a new one, so nothing written later is hidden behind it.
  @Test func aFrameCutShortByACrashIsDroppedAndHidesNothingWrittenAfter() async throws {
    do {
      let journal = try JournalRecordStorage(folder)
      #expect(try await journal.create("kept", Data("whole".utf8)))
    }
    let last = try #require(try segments().last)
    let handle = try FileHandle(forWritingTo: folder.appendingPathComponent(last))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([1, 7, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0]))  // a frame's first bytes only
    try handle.close()
    do {
      let journal = try JournalRecordStorage(folder)
      #expect(try await journal.names(after: nil, limit: 10) == ["kept"])
      #expect(try await journal.create("later", Data("after the crash".utf8)))
    }
    let reopened = try JournalRecordStorage(folder)
    #expect(try await reopened.names(after: nil, limit: 10) == ["kept", "later"])
  }

  /// Appends move to a new segment past the size given; a segment whose records are all gone is
  /// removed, so a journal of short-lived records stays small however much went through it.
  @Test func segmentsWithNothingLeftInThemAreRemoved() async throws {
    let journal = try JournalRecordStorage(folder, segmentSize: 256)
    for round in 0..<10 {
      for number in 0..<10 { #expect(try await journal.create("r-\(round)-\(number)", Data(repeating: 42, count: 40))) }
      for number in 0..<10 { #expect(try await journal.delete("r-\(round)-\(number)", at: 1)) }
    }
    #expect(try await journal.create("last", Data("x".utf8)))
    let left = try segments()
    #expect(left.count <= 2, "\(left)")
    journal.release()
    let reopened = try JournalRecordStorage(folder, segmentSize: 256)
    #expect(try await reopened.names(after: nil, limit: 200) == ["last"])
    let after = try segments()
    #expect(after.count <= 2, "\(after)")
  }

  /// Processes sharing a data folder each write a journal of their own; one that starts takes up
  /// those whose processes are gone, never one a living process has.
  @Test func aStartTakesUpTheJournalsOfProcessesThatAreGoneOnly() async throws {
    let living = try JournalRecordStorage.own(in: folder)
    let gone = try JournalRecordStorage.own(in: folder)
    #expect(try await living.create("mine", Data("1".utf8)))
    #expect(try await gone.create("left", Data("2".utf8)))
    gone.release()
    let orphans = try JournalRecordStorage.orphans(in: folder)
    #expect(orphans.count == 1)
    #expect(try await orphans.first?.names(after: nil, limit: 10) == ["left"])
    #expect(try JournalRecordStorage.orphans(in: folder).isEmpty, "taken up by one start, not by another at once")
    try orphans.first?.remove()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1, "the one taken up removed")
    #expect(try JournalRecordStorage.orphans(in: folder).isEmpty)
  }

  /// A record left long in an old segment neither keeps every newer segment nor lets a deletion
  /// in one of them be lost: a deleted record never comes back at the next start.
  @Test func aRecordLeftLongIsCarriedForwardAndNothingDeletedComesBack() async throws {
    let journal = try JournalRecordStorage(folder, segmentSize: 128)
    #expect(try await journal.create("long", Data("stays".utf8)))
    #expect(try await journal.create("x", Data("goes".utf8)))
    #expect(try await journal.delete("x", at: 1))
    for number in 0..<40 {
      #expect(try await journal.create("r-\(number)", Data(repeating: 42, count: 30)))
      #expect(try await journal.delete("r-\(number)", at: 1))
    }
    let left = try segments()
    #expect(left.count <= 2, "\(left)")
    journal.release()
    let reopened = try JournalRecordStorage(folder, segmentSize: 128)
    #expect(try await reopened.names(after: nil, limit: 100) == ["long"])
    #expect(try await reopened.read("long")?.data == Data("stays".utf8))
  }
}
