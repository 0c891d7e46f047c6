import Crypto
import Foundation
import PointApp

/// Every operator action, append-only, newest first, as a hash chain: each entry carries the
/// SHA-256 of the bytes of the entry before it, and the log's head record the number and hash of
/// the newest, so that one changed byte, a removed entry or an inserted one breaks the chain where
/// it was made (`verify`, `pointapp audit verify`). Nothing in the program replaces or deletes an
/// entry, and no URL reaches the log but its page. Kept in the record layer like everything else
/// (`data/audit/`, the `audit` table).
///
/// An entry's number is taken by creating its record: of two appends at once one creates number
/// n + 1 and the other, refused, chains onto it as n + 2; so the chain never forks, on any store
/// and across processes. The head is moved on after the entry is created: a crash between the two
/// leaves the newest entries chained but not yet anchored (`AuditVerification.unanchored`), which
/// the next append anchors.
public struct AuditLog: Sendable {
  /// An entry's name: its number counted down from `Int64.max` in 19 digits, so that names in
  /// ascending order are entries newest first.
  struct Name: RecordKey {
    let number: Int64

    init(number: Int64) {
      self.number = number
    }

    var recordName: String { String(format: "%019lld", Int64.max - number) }

    init?(recordName: String) {
      guard recordName.utf8.count == 19, recordName.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
        let countdown = Int64(recordName), countdown < Int64.max
      else { return nil }
      number = Int64.max - countdown
    }
  }

  /// The newest entry's number and the hash of its bytes, in the record `head`.
  struct Head: Codable, Sendable {
    var number: Int64
    var hash: String
  }

  /// An entry as stored: the entry's own fields and, beside them, the hash of the entry before
  /// it (`nil` for the first).
  struct Chained: Codable, Sendable {
    var entry: AuditEntry
    var previous: String?

    private enum CodingKeys: String, CodingKey { case previous }

    init(entry: AuditEntry, previous: String?) {
      self.entry = entry
      self.previous = previous
    }

    init(from decoder: any Decoder) throws {
      entry = try AuditEntry(from: decoder)
      previous = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .previous)
    }

    func encode(to encoder: any Encoder) throws {
      try entry.encode(to: encoder)
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encodeIfPresent(previous, forKey: .previous)
    }
  }

  static let headName = "head"

  let storage: any RecordStorage
  let records: Records<Name, Chained>

  public init(_ storage: any RecordStorage) {
    self.storage = storage
    records = Records(storage)
  }

  public func append(_ entry: AuditEntry) async throws {
    while true {
      let newest = try await records.keys(after: nil, limit: 1).first
      var previous: String?
      if let newest {
        // Gone between listing and reading: only by hand, which `verify` finds; chained onto
        // nothing here would hide it, so the append fails.
        guard let bytes = try await storage.read(newest.recordName)?.data else { throw AuditLogBroken(newest: newest.number) }
        previous = Self.hash(bytes)
      }
      let name = Name(number: (newest?.number ?? 0) + 1)
      let chained = Chained(entry: entry, previous: previous)
      let bytes = try SavedJSON.encode(chained)
      guard try await storage.create(name.recordName, bytes) else { continue }
      try await moveHead(to: Head(number: name.number, hash: Self.hash(bytes)))
      return
    }
  }

  private func moveHead(to head: Head) async throws {
    let heads = Records<RecordName, Head>(storage)
    try await heads.modify(RecordName(Self.headName)) { current in
      guard (current?.number ?? 0) < head.number else { return (nil, ()) }
      return (head, ())
    }
  }

  /// Up to `limit` entries, newest first, after `cursor` (a name a page gave as `next`; `nil`: the
  /// newest). A cursor that is not one is `OperatorError.notFound`.
  public func page(after cursor: String?, limit: Int = 50) async throws -> AuditPage {
    let start = try cursor.map { try Name(recordName: $0) ?? { throw OperatorError.notFound }() }
    let names = try await records.keys(after: start, limit: limit + 1)
    var entries: [AuditEntry] = []
    for name in names.prefix(limit) {
      if let chained = try await records.read(name)?.record { entries.append(chained.entry) }
    }
    return AuditPage(entries: entries, next: names.count > limit ? names[limit - 1].recordName : nil)
  }

  /// Walks the whole log, oldest first, and says where it was first tampered with: an entry whose
  /// bytes are not what the next one recorded (changed, or the next one inserted), a number
  /// missing (removed), a record that is no entry (inserted), a head that does not match.
  public func verify() async throws -> AuditVerification {
    var numbers: [Int64] = []
    for name in try await storage.allNames() where name != Self.headName {
      guard let parsed = Name(recordName: name) else { return .broken(.foreignRecord(name)) }
      numbers.append(parsed.number)
    }
    numbers.sort()
    var previousHash: String?
    var previousNumber: Int64 = 0
    for number in numbers {
      guard number == previousNumber + 1 else { return .broken(.missing(previousNumber + 1)) }
      let name = Name(number: number)
      guard let bytes = try await storage.read(name.recordName)?.data else { return .broken(.missing(number)) }
      guard let chained = try? SavedJSON.decode(Chained.self, from: bytes) else { return .broken(.unreadable(number)) }
      guard chained.previous == previousHash else { return .broken(.changed(previousNumber, next: number)) }
      previousHash = Self.hash(bytes)
      previousNumber = number
    }
    let head = try await storage.read(Self.headName).flatMap { try? SavedJSON.decode(Head.self, from: $0.data) }
    guard let head else { return numbers.isEmpty ? .intact(entries: 0, unanchored: 0) : .broken(.headMissing) }
    guard head.number <= previousNumber else { return .broken(.missing(previousNumber + 1)) }
    let anchored = Name(number: head.number)
    guard let bytes = try await storage.read(anchored.recordName)?.data, Self.hash(bytes) == head.hash else {
      return .broken(.changed(head.number, next: nil))
    }
    return .intact(entries: numbers.count, unanchored: Int(previousNumber - head.number))
  }

  static func hash(_ bytes: Data) -> String {
    hex(SHA256.hash(data: bytes))
  }
}

/// What `AuditLog.verify` found.
public enum AuditVerification: Equatable, Sendable {
  /// Every entry follows the one before it and the head names the newest (or all but the
  /// `unanchored` newest, appended after the head last moved: a crash between an entry and its
  /// head; the next append anchors them).
  case intact(entries: Int, unanchored: Int)
  case broken(AuditTampering)
}

/// Where the audit log was first tampered with.
public enum AuditTampering: Equatable, Sendable, CustomStringConvertible {
  /// Entry `number`'s bytes are not what entry `next` recorded of them: `number` was changed, or
  /// `next` was inserted or changed. `next` is `nil` when the head recorded them.
  case changed(Int64, next: Int64?)
  /// Entry `number` is not there: removed.
  case missing(Int64)
  /// Entry `number` is not an entry any more.
  case unreadable(Int64)
  /// A record that no append made.
  case foreignRecord(String)
  /// The head record is gone while entries remain.
  case headMissing

  public var description: String {
    switch self {
    case let .changed(number, next?):
      "entry #\(number) was changed, or entry #\(next) after it was inserted or changed: #\(next) does not record #\(number) as it is"
    case let .changed(number, nil):
      "entry #\(number) was changed: it is not what the head recorded"
    case let .missing(number): "entry #\(number) was removed"
    case let .unreadable(number): "entry #\(number) was changed: it is no longer an entry"
    case let .foreignRecord(name): "a record no append made was inserted: \(name)"
    case .headMissing: "the head record was removed"
    }
  }
}

/// The newest entry could not be read while appending: the log was changed by hand.
public struct AuditLogBroken: Error, CustomStringConvertible {
  let newest: Int64
  public var description: String { "the audit log's newest entry (#\(newest)) cannot be read: run `pointapp audit verify`" }
}
