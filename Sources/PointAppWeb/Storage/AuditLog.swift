import Foundation
import PointApp

/// Every operator action, append-only, newest first: one record per entry, created and never
/// written again (nothing in the program replaces or deletes one, and no URL reaches the log but
/// its page). Kept in the record layer like everything else (`data/audit/`, the `audit` table).
public struct AuditLog: Sendable {
  /// An entry's name: the time it was written, by the system's clock to the microsecond, counted
  /// down from the end of time, so that names in ascending order are entries newest first (the
  /// entry's own time is the request's, which tests pin); and a random part, so that two written
  /// in one microsecond differ.
  struct Name: RecordKey {
    let recordName: String

    init(at date: Date) {
      let micros = Int64(date.timeIntervalSince1970 * 1_000_000)
      recordName = String(format: "%019lld", Int64.max - micros) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16).leftPadded(to: 8)
    }

    init?(recordName: String) {
      let parts = recordName.split(separator: "-", omittingEmptySubsequences: false)
      guard parts.count == 2, parts[0].count == 19, parts[0].allSatisfy(\.isASCIIDigit),
        parts[1].count == 8, parts[1].allSatisfy(\.isLowercaseHexDigit)
      else { return nil }
      self.recordName = recordName
    }
  }

  let records: Records<Name, AuditEntry>

  public init(_ storage: any RecordStorage) {
    records = Records(storage)
  }

  public func append(_ entry: AuditEntry) async throws {
    while !(try await records.create(entry, as: Name(at: Date()))) {}
  }

  /// Up to `limit` entries, newest first, after `cursor` (a name a page gave as `next`; `nil`: the
  /// newest). A cursor that is not one is `OperatorError.notFound`.
  public func page(after cursor: String?, limit: Int = 50) async throws -> AuditPage {
    let start = try cursor.map { try Name(recordName: $0) ?? { throw OperatorError.notFound }() }
    let names = try await records.keys(after: start, limit: limit + 1)
    var entries: [AuditEntry] = []
    for name in names.prefix(limit) {
      if let entry = try await records.read(name)?.record { entries.append(entry) }
    }
    return AuditPage(entries: entries, next: names.count > limit ? names[limit - 1].recordName : nil)
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
  fileprivate var isLowercaseHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
