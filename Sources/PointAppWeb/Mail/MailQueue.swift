import Foundation
import PointApp

/// A message waiting in the queue: what it says, where it goes, and how its delivery stands.
struct QueuedMail: Codable, Equatable, Sendable {
  /// The left part of its Message-ID (32 hex digits): the one identity of every attempt.
  let id: String
  /// Whose change queued it.
  let user: UserID?
  /// What it is (`verification`, …), for the log and the desk.
  let kind: String
  let to: String
  let subject: String
  let body: String
  let queued: Date
  /// Its place in the queue: the milliseconds of `queued`, which the record keeps only to the
  /// second.
  let place: Int64
  var attempts = 0
  /// Not tried before then.
  var due: Date
  /// The process delivering it now, and until when: the others leave it alone till then.
  var claim: Claim?
  /// The server's last answer, or why it could not be reached.
  var lastReply: String?
  /// A notice's one-click unsubscribe link (`List-Unsubscribe`, RFC 8058); `nil` for the
  /// account's own mail. A message that has one is bulk: it goes after every other waiting.
  var unsubscribe: String?
  /// The list a notice belongs to, which its member may have stopped before it goes.
  var list: NoticeList?
  /// The last byte of it was handed to the server by the process that claimed it, whose answer
  /// was not heard: it is not sent again (a server that took it would deliver it twice).
  var handedOver: Date?

  struct Claim: Codable, Equatable, Sendable {
    let by: String
    let until: Date
  }

  init(
    id: String, user: UserID?, kind: String, to: String, subject: String, body: String, queued: Date, unsubscribe: String? = nil,
    list: NoticeList? = nil
  ) {
    (self.id, self.user, self.kind, self.to, self.subject, self.body) = (id, user, kind, to, subject, body)
    (self.queued, due, self.unsubscribe, self.list) = (queued, queued, unsubscribe, list)
    place = Int64((queued.timeIntervalSince1970 * 1000).rounded(.down))
  }

  /// `m-<place, 13 digits>-<id>` (`b-…` for bulk): each part of the queue in the order its
  /// messages were queued.
  var name: RecordName { RecordName(Self.prefix(bulk: isBulk), String(format: "%013lld-", place) + id) }

  var isBulk: Bool { unsubscribe != nil }

  static func prefix(bulk: Bool) -> String { bulk ? "b-" : "m-" }
}

/// What became of a message that left the queue: delivered, or refused for good with the server's
/// words. Kept without the address (`mail-log/<id>`).
struct MailOutcome: Codable, Equatable, Sendable {
  let id: String
  let user: UserID?
  let kind: String
  let subject: String
  let queued: Date
  let ended: Date
  let attempts: Int
  let delivered: Bool
  let reply: String?
}

/// The messages waiting to be delivered, and the log of those that left. A change queues its
/// messages in its own holding (`add`), so that they are written with it or not at all; a worker
/// (`MailSender`) claims each in turn, and ends it in one holding that takes it out of the queue
/// and writes its outcome, so that a message delivered is never taken up again.
struct MailQueue: Sendable {
  let backend: any RecordBackend
  private let queue: Records<RecordName, QueuedMail>
  private let log: Records<RecordName, MailOutcome>

  init(_ backend: any RecordBackend) {
    self.backend = backend
    queue = Records(backend.table(.mailQueue))
    log = Records(backend.table(.mailLog))
  }

  func add(_ messages: [QueuedMail]) async throws {
    for message in messages { _ = try await queue.create(message, as: message.name) }
  }

  /// Up to `limit` messages of the queue's part (the account's own mail, or bulk) after `name`,
  /// oldest first.
  func waiting(bulk: Bool = false, after name: RecordName?, limit: Int = 100) async throws -> [QueuedMail] {
    try await queue.records(prefixed: QueuedMail.prefix(bulk: bulk), after: name, limit: limit)
  }

  /// Claims `message` for `process` until `until`, if it is still waiting, due at `now` and no other
  /// claim holds it: the message with the attempt counted, or `nil`.
  func claim(_ message: QueuedMail, for process: String, at now: Date, until: Date) async throws -> QueuedMail? {
    try await queue.modify(message.name) { current in
      guard var current, current.due <= now, (current.claim?.until ?? .distantPast) <= now else { return (nil, nil) }
      current.claim = QueuedMail.Claim(by: process, until: until)
      current.attempts += 1
      return (current, current)
    }
  }

  /// Notes that the last byte of `message`, claimed by `process`, is about to leave; `false` when
  /// the claim is no longer its own (it ran out, and another process took the message).
  func handingOver(_ message: QueuedMail, by process: String, at now: Date) async throws -> Bool {
    try await queue.modify(message.name) { current in
      guard var current, current.claim?.by == process, current.claim.map({ $0.until > now }) == true else { return (nil, false) }
      current.handedOver = now
      return (current, true)
    }
  }

  /// Puts a claimed message back, to be tried again at `due`.
  func retry(_ message: QueuedMail, at due: Date, reply: String) async throws {
    try await queue.modify(message.name) { current in
      guard var current else { return (nil, ()) }
      // The server answered (a refusal), or never had the last byte: it does not hold it.
      (current.claim, current.due, current.lastReply, current.handedOver) = (nil, due, reply, nil)
      return (current, ())
    }
  }

  /// Takes `message` out of the queue and logs what became of it, both or neither; `false` when it
  /// had left already.
  @discardableResult
  func end(_ message: QueuedMail, delivered: Bool, reply: String?, listed: Bool = true, at now: Date) async throws -> Bool {
    try await backend.holding("mail:" + message.id) {
      guard let current = try await queue.storage.readForUpdate(message.name.recordName) else { return false }
      guard try await queue.delete(message.name, at: current.version) else { return false }
      let outcome = MailOutcome(
        id: message.id, user: message.user, kind: message.kind, subject: message.subject, queued: message.queued, ended: now,
        attempts: message.attempts, delivered: delivered, reply: reply
      )
      _ = try await log.create(outcome, as: RecordName(message.id))
      // Refusals again, by when they ended: the desk lists the newest.
      if !delivered && listed { _ = try await log.create(outcome, as: Self.refusalName(outcome)) }
      return true
    }
  }

  /// `refused-<13 digits counting down from 9999999999999 ms>-<id>`: the newest first in the
  /// order of names, so that the desk reads a page, never them all.
  static func refusalName(_ outcome: MailOutcome) -> RecordName {
    let countdown = 9_999_999_999_999 - Int64((outcome.ended.timeIntervalSince1970 * 1000).rounded(.down))
    return RecordName("refused-", String(format: "%013lld-", countdown) + outcome.id)
  }

  /// The newest `limit` messages that never reached their member, newest first.
  func refusals(limit: Int = 20) async throws -> [MailOutcome] {
    try await log.records(prefixed: "refused-", after: nil, limit: limit)
  }

  /// What became of message `id`; `nil` while it waits (or never was).
  func outcome(_ id: String) async throws -> MailOutcome? {
    try await log.read(RecordName(id))?.record
  }
}
