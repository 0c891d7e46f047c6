import Foundation
import PointApp
@testable import PointAppWeb
import Testing

/// An entry's JSON as the log writes it.
func encoded(_ entry: AuditEntry) throws -> Data {
  let encoder = JSONEncoder()
  encoder.dateEncodingStrategy = .iso8601
  encoder.outputFormatting = [.sortedKeys]
  return try encoder.encode(entry)
}

/// What the audit log guarantees, in memory, in files and in PostgreSQL alike: every entry kept,
/// newest first, a page at a time, in a chain that shows any entry changed, removed or inserted.
struct AuditLogContractTests {
  typealias Kind = StoreKind

  /// Each case a log of its own: on PostgreSQL a database of its own (the `audit` table is one log).
  static func log(_ kind: Kind) async throws -> AuditLog {
    AuditLog(try await storage(kind))
  }

  static func storage(_ kind: Kind) async throws -> any RecordStorage {
    guard kind == .postgres else { return try await kind.records() }
    return PostgresRecordStorage(try await TestDatabase.make(), table: "audit")
  }

  /// Six entries, numbered 1 to 6, each `after` its number's digit.
  static func written(_ kind: Kind) async throws -> (AuditLog, any RecordStorage) {
    let storage = try await storage(kind)
    let log = AuditLog(storage)
    for number in 1...6 {
      try await log.append(AuditEntry(at: noon + Double(number), operatorEmail: "ops@example.jp", action: .pointsAdjusted, subject: "u", after: "\(number)"))
    }
    return (log, storage)
  }

  static func name(_ number: Int64) -> String {
    AuditLog.Name(number: number).recordName
  }

  /// Replaces the record `name` with `change` of its bytes, as someone with the files or the
  /// database could, and gives back a way to put it back.
  static func tamper(_ storage: any RecordStorage, _ name: String, _ change: (inout Data) -> Void) async throws -> @Sendable () async throws -> Void {
    let (original, version) = try #require(try await storage.read(name))
    var changed = original
    change(&changed)
    #expect(try await storage.replace(name, changed, at: version))
    return {
      let now = try #require(try await storage.read(name))
      #expect(try await storage.replace(name, original, at: now.version))
    }
  }

  @Test(arguments: Kind.tested)
  func oneChangedByteInAnyEntryIsFoundAndNamed(kind: Kind) async throws {
    let (log, storage) = try await Self.written(kind)
    #expect(try await log.verify() == .intact(entries: 6, unanchored: 0))
    for number: Int64 in 1...6 {
      // The digit of its `after`: the bytes stay an entry, one value differs.
      let restore = try await Self.tamper(storage, Self.name(number)) { bytes in
        let at = bytes.range(of: Data(#""after":""#.utf8))!.upperBound
        bytes[at] = bytes[at] == UInt8(ascii: "9") ? UInt8(ascii: "1") : bytes[at] + 1
      }
      #expect(try await log.verify() == .broken(.changed(number, next: number < 6 ? number + 1 : nil)), "entry \(number)")
      try await restore()
    }
    let restore = try await Self.tamper(storage, Self.name(3)) { $0[$0.startIndex] = UInt8(ascii: "x") }
    #expect(try await log.verify() == .broken(.unreadable(3)))
    try await restore()
    #expect(try await log.verify() == .intact(entries: 6, unanchored: 0))
  }

  @Test(arguments: Kind.tested)
  func aRemovedEntryIsFoundTheNewestToo(kind: Kind) async throws {
    let (log, storage) = try await Self.written(kind)
    for number: Int64 in [3, 6, 1] {
      let (bytes, version) = try #require(try await storage.read(Self.name(number)))
      #expect(try await storage.delete(Self.name(number), at: version))
      #expect(try await log.verify() == .broken(.missing(number)), "entry \(number)")
      #expect(try await storage.create(Self.name(number), bytes))
    }
    #expect(try await log.verify() == .intact(entries: 6, unanchored: 0))
  }

  @Test(arguments: Kind.tested)
  func anInsertedEntryIsFound(kind: Kind) async throws {
    let (log, storage) = try await Self.written(kind)
    // A record under a name no append gives.
    #expect(try await storage.create("planted", Data("{}".utf8)))
    #expect(try await log.verify() == .broken(.foreignRecord("planted")))
    #expect(try await storage.delete("planted", at: 1))
    // An entry slipped in as number 4, chained onto number 3 as an append would, the later ones
    // moved up a number each: the entry after it recorded another.
    for number: Int64 in [6, 5, 4] {
      let (bytes, version) = try #require(try await storage.read(Self.name(number)))
      #expect(try await storage.create(Self.name(number + 1), bytes))
      #expect(try await storage.delete(Self.name(number), at: version))
    }
    let third = try #require(try await storage.read(Self.name(3))).data
    let forged = AuditEntry(at: noon + 3.5, operatorEmail: "ops@example.jp", action: .pointsAdjusted, subject: "u", after: "1000000")
    var json = try JSONSerialization.jsonObject(with: try encoded(forged)) as! [String: Any]
    json["previous"] = AuditLog.hash(third)
    #expect(try await storage.create(Self.name(4), try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])))
    #expect(try await log.verify() == .broken(.changed(4, next: 5)))
  }

  @Test(arguments: Kind.tested)
  func entriesArePagedNewestFirstAndEveryOneIsKept(kind: Kind) async throws {
    let log = try await Self.log(kind)
    #expect(try await log.page(after: nil) == AuditPage(entries: [], next: nil))
    let written = (0..<7).map { number in
      AuditEntry(at: noon + Double(number), operatorEmail: "ops@example.jp", action: .surveyClosed, subject: "s\(number)", before: "締切なし", after: "\(number)")
    }
    for entry in written { try await log.append(entry) }
    let first = try await log.page(after: nil, limit: 3)
    #expect(first.entries == Array(written.reversed().prefix(3)))
    let second = try await log.page(after: try #require(first.next), limit: 3)
    #expect(second.entries == Array(written.reversed().dropFirst(3).prefix(3)))
    let last = try await log.page(after: try #require(second.next), limit: 3)
    #expect(last.entries == [written[0]])
    #expect(last.next == nil)
  }

  @Test(arguments: Kind.tested)
  func entriesWrittenAtOnceAreAllKept(kind: Kind) async throws {
    let log = try await Self.log(kind)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 0..<20 {
        group.addTask { try await log.append(AuditEntry(at: noon, operatorEmail: "ops\(number)@example.jp", action: .signedIn)) }
      }
      try await group.waitForAll()
    }
    let page = try await log.page(after: nil, limit: 50)
    #expect(Set(page.entries.map(\.operatorEmail)).count == 20)
  }

  @Test(arguments: Kind.tested)
  func aCursorNoPageGaveIsNotFound(kind: Kind) async throws {
    let log = try await Self.log(kind)
    for cursor in ["../../etc/passwd", "", "9223372036854775807-zzzzzzzz", "1-0000000a"] {
      await #expect(throws: OperatorError.notFound) { try await log.page(after: cursor) }
    }
  }
}
