import Foundation
import PointApp

/// Exchange requests waiting for their code (申請中): one record each, `<user>~<number>`, written
/// with the state that holds the request (`UserSave.before`, the same commit), taken out once the
/// request has ended. Between the fulfiller's calls a record says when the request is due again,
/// how many calls said nothing, whether the last one's answer was lost, and which process holds
/// it now (a lease, so that one process at a time calls the source for it).
struct ExchangeQueue: Sendable {
  let storage: any RecordStorage
  private let records: Records<RecordName, Waiting>

  init(storage: any RecordStorage) {
    self.storage = storage
    records = Records(storage)
  }

  struct Entry: Equatable, Sendable {
    let user: UserID
    let number: Int
    var name: String { "\(user.rawValue)~\(number)" }
  }

  /// What the fulfiller knows of a request between its calls (an entry written before these
  /// were kept reads as due at once, never tried).
  struct Waiting: Codable, Equatable, Sendable {
    var due: Date?
    var attempts: Int?
    var claim: QueuedMail.Claim?
    /// The last call said nothing: the source may have issued, so its status is asked first.
    var unknown: Bool?
    /// The support desk asked for it to end now (cancelled at the source, or delivered).
    var endAsked: Bool?
    /// Made due now (the desk) while a process held it: that process puts it back due at once.
    var nudged: Bool?
    /// When the request was queued (an entry written before this was kept has none).
    var since: Date?
  }

  func add(_ entries: [Entry], at now: Date) async throws {
    for entry in entries { _ = try await records.create(Waiting(since: now), as: RecordName(entry.name)) }
  }

  /// Every request waiting, with what its entry knows, the oldest first (those queued before
  /// entries said when come first).
  func all() async throws -> [(entry: Entry, waiting: Waiting)] {
    var (found, after): ([(entry: Entry, waiting: Waiting)], String?) = ([], nil)
    while true {
      let (entries, next) = try await page(after: after)
      for entry in entries {
        if let waiting = try await waiting(entry) { found.append((entry, waiting)) }  // (or ended meanwhile)
      }
      guard let next else { return found.sorted { ($0.waiting.since ?? .distantPast) < ($1.waiting.since ?? .distantPast) } }
      after = next
    }
  }

  /// How many requests wait, and how long the oldest has (of those whose entry says).
  func census(at now: Date) async throws -> (waiting: Int, oldest: TimeInterval?) {
    let all = try await all()
    let oldest = all.lazy.compactMap(\.waiting.since).first
    return (all.count, oldest.map { max(0, now.timeIntervalSince($0)) })
  }

  /// Up to `limit` entries, after `entry`; names that are not entries are skipped.
  func entries(after entry: Entry? = nil, limit: Int = 100) async throws -> [Entry] {
    try await page(after: entry?.name, limit: limit).entries
  }

  /// The entries among the next `limit` names after `name`, and the name to go on from (`nil`:
  /// none is left). Paged by name, not by entry: a page of names that are not entries (an older
  /// release's) does not end the walk.
  func page(after name: String?, limit: Int = 100) async throws -> (entries: [Entry], next: String?) {
    let names = try await storage.names(after: name, limit: limit)
    let entries = names.compactMap { name -> Entry? in
      let parts = name.split(separator: "~")
      guard parts.count == 2, let user = UserID(parts[0]), let number = Int(parts[1]) else { return nil }
      return Entry(user: user, number: number)
    }
    return (entries, names.count == limit ? names.last : nil)
  }

  func waiting(_ entry: Entry) async throws -> Waiting? {
    try await records.read(RecordName(entry.name))?.record
  }

  /// Claims `entry` for `process` until `until` if it is due at `now` and no live claim holds it:
  /// what it knew, or `nil`.
  func claim(_ entry: Entry, for process: String, at now: Date, until: Date) async throws -> Waiting? {
    try await records.modify(RecordName(entry.name)) { current in
      guard var current, (current.due ?? .distantPast) <= now, (current.claim?.until ?? .distantPast) <= now else { return (nil, nil) }
      (current.claim, current.nudged) = (QueuedMail.Claim(by: process, until: until), nil)
      return (current, current)
    }
  }

  /// Puts `entry`, claimed by `process`, back: after a call that said nothing (`unknown`: its
  /// status is asked first next time), due again at `due`; due at once if the desk moved it
  /// meanwhile. Nothing when the claim is no longer `process`'s (it ran out, another took it).
  func putBack(_ entry: Entry, by process: String, due: Date, unknown: Bool) async throws {
    try await records.modify(RecordName(entry.name)) { current in
      guard var current, current.claim?.by == process else { return (nil, ()) }
      (current.claim, current.due) = (nil, current.nudged == true ? nil : due)
      current.nudged = nil
      if unknown {
        current.unknown = true
        current.attempts = (current.attempts ?? 0) + 1
      }
      return (current, ())
    }
  }

  /// Makes `entry` due now (`end`: to be ended rather than issued), written in the user's update
  /// that asked (the desk's): an entry missing (a request queued before entries were kept) is
  /// made.
  func nudge(_ entry: Entry, end: Bool) async throws {
    try await records.modify(RecordName(entry.name)) { current in
      var waiting = current ?? Waiting()
      (waiting.due, waiting.nudged) = (nil, waiting.claim == nil ? nil : true)
      if end { waiting.endAsked = true }
      return (waiting, ())
    }
  }

  func remove(_ entry: Entry) async throws {
    guard let (_, version) = try await storage.read(entry.name) else { return }
    _ = try await storage.delete(entry.name, at: version)
  }
}
