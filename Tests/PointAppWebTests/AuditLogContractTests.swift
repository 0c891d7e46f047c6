import Foundation
import PointApp
import PointAppWeb
import Testing

/// What the audit log guarantees, in memory, in files and in PostgreSQL alike: every entry kept,
/// newest first, a page at a time.
struct AuditLogContractTests {
  typealias Kind = StoreKind

  /// Each case a log of its own: on PostgreSQL a database of its own (the `audit` table is one log).
  static func log(_ kind: Kind) async throws -> AuditLog {
    guard kind == .postgres else { return AuditLog(try await kind.records()) }
    return AuditLog(PostgresRecordStorage(try await TestDatabase.make(), table: "audit"))
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
