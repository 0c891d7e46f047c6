import Foundation
import Logging
import PointApp
import ServiceLifecycle
import Synchronization

/// Delivers the queue (`MailQueue`), in every process that shares it: each message due is claimed
/// (one process at a time holds it, for `lease`), handed to the transport outside any user's lock
/// or transaction, then ended: delivered, or refused for good (5xx) with the server's words. A
/// temporary refusal (4xx) or a server out of reach puts it back, due again after a backoff that
/// doubles with each attempt (with jitter), until `giveUpAfter` from its queueing.
struct MailSender: Sendable {
  let queue: MailQueue
  let transport: any MailTransport
  /// This process, as its claims name it.
  let process: String
  let now: @Sendable () -> Date
  let logger: Logger
  /// Where a notice's member is looked up before it goes (`nil`: not looked up).
  var audience: NoticeAudience?
  /// Longer than any conversation (`SMTPServer.deadline`): a claim outlives its
  /// delivery, and only a process that died leaves one to run out.
  var lease: TimeInterval = 120
  var giveUpAfter: TimeInterval = 3 * 24 * 3600

  /// Bulk messages (notices) delivered between two looks at the account's own mail, which never
  /// waits behind more than these.
  var bulkPerSweep = 50
  /// How long one pass goes on delivering notices.
  var bulkFor: Duration = .seconds(10)

  /// One pass over the queue: every due message of the account's own mail, then up to
  /// `bulkPerSweep` notices, and again while notices are left (for `bulkFor` at most); how many
  /// messages it delivered. The server shutting down ends it after the message in hand: the
  /// others wait for the next process, which a stop does not keep waiting.
  @discardableResult
  func sweep() async throws -> Int {
    let start = ContinuousClock.now
    var delivered = 0
    while true {
      delivered += try await sweep(bulk: false, limit: .max)
      let (notices, tried) = try await sweep(bulk: true, limit: bulkPerSweep, counting: true)
      delivered += notices
      guard tried == bulkPerSweep, ContinuousClock.now - start < bulkFor else { return delivered }
    }
  }

  private func sweep(bulk: Bool, limit: Int) async throws -> Int {
    try await sweep(bulk: bulk, limit: limit, counting: true).delivered
  }

  /// Delivers up to `limit` due messages of one part of the queue: how many were delivered, and
  /// how many tried.
  private func sweep(bulk: Bool, limit: Int, counting: Bool) async throws -> (delivered: Int, tried: Int) {
    var (delivered, tried) = (0, 0)
    var after: RecordName?
    // Each page starts past the last: a record whose name is not its message's cannot loop it.
    while tried < limit, case let page = try await queue.waiting(bulk: bulk, after: after, limit: min(100, limit)), let last = page.last,
      after.map({ last.name.recordName > $0.recordName }) ?? true
    {
      for message in page where message.due <= now() && tried < limit {
        if Task.isShuttingDownGracefully { return (delivered, tried) }
        tried += 1
        if try await deliver(message) { delivered += 1 }
      }
      after = last.name
    }
    return (delivered, tried)
  }

  /// Claims and delivers one message; `true` once it is delivered.
  func deliver(_ waiting: QueuedMail) async throws -> Bool {
    let start = now()
    guard let message = try await queue.claim(waiting, for: process, at: start, until: start.addingTimeInterval(lease)) else { return false }
    if let handedOver = message.handedOver {
      // A process handed it over and ended before the server answered: the server may have it.
      try await queue.end(message, delivered: true, reply: "handed over at \(handedOver), the answer not heard", at: now())
      logger.notice("mail handed over by a process that ended: not sent again", metadata: ["message": "\(message.id)", "kind": "\(message.kind)"])
      return true
    }
    let handed = Mutex(false)
    do {
      // (Inside: a member's settings that cannot be read now put the notice back for later, as a
      // server out of reach does, instead of holding it claimed.)
      if message.isBulk, let why = try await audience?.reasonNotToSend(message) { throw NoticeNotWanted(reason: why) }
      try await transport.deliver(message) { [queue, process, now] in
        guard try await queue.handingOver(message, by: process, at: now()) else { throw MailClaimLost() }
        handed.withLock { $0 = true }
      }
    } catch let unwanted as NoticeNotWanted {
      try await queue.end(message, delivered: false, reply: "not sent: " + unwanted.reason, listed: false, at: now())
      logger.info("notice not sent", metadata: ["message": "\(message.id)", "kind": "\(message.kind)", "reason": "\(unwanted.reason)"])
      return false
    } catch let refusal as MailRefusal where refusal.isPermanent {
      let reply = Self.withoutAddress(refusal.description, of: message)
      try await queue.end(message, delivered: false, reply: reply, at: now())
      logger.warning("mail refused for good", metadata: ["message": "\(message.id)", "kind": "\(message.kind)", "reply": "\(reply)"])
      return false
    } catch where !(error is MailRefusal) && handed.withLock({ $0 }) {
      // Gone to the server, its answer lost (the connection dropped): it may have taken it.
      try await queue.end(message, delivered: true, reply: Self.withoutAddress("handed over, the answer not heard: \(error)", of: message), at: now())
      logger.warning("mail handed over, the answer lost: not sent again", metadata: ["message": "\(message.id)", "error": "\(error)"])
      return true
    } catch is MailClaimLost {
      return false
    } catch {
      let reply = Self.withoutAddress("\(error)", of: message)
      if now().timeIntervalSince(message.queued) >= giveUpAfter {
        try await queue.end(message, delivered: false, reply: "gave up after \(message.attempts) attempts: \(reply)", at: now())
        logger.error("mail given up", metadata: ["message": "\(message.id)", "kind": "\(message.kind)", "reply": "\(reply)"])
      } else {
        try await queue.retry(message, at: now().addingTimeInterval(Self.backoff(after: message.attempts)), reply: reply)
        logger.warning("mail not delivered: tried again later", metadata: ["message": "\(message.id)", "attempt": "\(message.attempts)", "reply": "\(reply)"])
      }
      return false
    }
    // Delivered: a failure to record it now is the sweep's error, and the message stays claimed
    // until its lease runs out, then is ended as handed over, never sent a second time.
    try await queue.end(message, delivered: true, reply: nil, at: now())
    logger.info("mail delivered", metadata: ["message": "\(message.id)", "kind": "\(message.kind)", "attempt": "\(message.attempts)"])
    return true
  }

  /// A server's words as they are kept (the log, the queue, the desk): the recipient's address,
  /// which servers often quote, masked, so that it is kept nowhere once the message has left.
  static func withoutAddress(_ reply: String, of message: QueuedMail) -> String {
    reply.replacingOccurrences(of: message.to, with: EmailAddress(message.to)?.masked ?? "•••", options: .caseInsensitive)
  }

  /// The wait after the `attempts`th attempt failed: 30 s, doubling, at most an hour, each
  /// between three quarters and the whole of it so that a crowd of messages spreads out.
  static func backoff(after attempts: Int) -> TimeInterval {
    let full = min(30 * pow(2, Double(max(attempts, 1) - 1)), 3600)
    return full * Double.random(in: 0.75...1)
  }
}

/// A message's claim ran out while it was being delivered, and another process may have it now:
/// this one lets it go without handing it over.
struct MailClaimLost: Error {}

/// A notice whose member no longer wants it (`NoticeAudience`).
private struct NoticeNotWanted: Error {
  let reason: String
}

/// Whether a notice still goes when its turn comes, looked up at delivery: queued, it may wait
/// behind thousands of others or a server's refusals, and meanwhile its member may leave, move to
/// another address, or stop its list (the mail's one-click link, the settings page).
struct NoticeAudience: Sendable {
  let accounts: AccountRecords
  let users: UserStates

  /// Why `message` is not to go; `nil` when it goes.
  func reasonNotToSend(_ message: QueuedMail) async throws -> String? {
    guard let user = message.user else { return nil }
    guard try await accounts.read(AccountID(email: message.to))?.record.user == user else {
      return "the member left, or moved to another address"
    }
    if let list = message.list, let data = try await users.read(user), !(try SavedState.state(from: data).progress.notices.receives(list)) {
      return "the member stopped \(list.rawValue)"
    }
    return nil
  }
}
