import Foundation
import Logging
import PointApp
import Synchronization

/// One pass over every member for one reason: a survey's invitations (`invite-<survey>`, started
/// when it is first published from the console), its reminder (`remind-<survey>`, started once
/// its deadline is within `Notices.reminderLead`, for a survey that invited) or a day's expiry
/// warnings (`expiry-<day>`). Its
/// cursor moves through the accounts in pages; each member is asked through their own update
/// (`Notifications`), which sends at most once what is due to them.
struct NoticeRun: Codable, Equatable, Sendable {
  /// `invite-<survey>`, `remind-<survey>` or `expiry-<day>`.
  let reason: String
  var progress: InvitationProgress
  /// The last account looked at.
  var after: AccountID?
  /// The process taking the next page, and until when.
  var claim: QueuedMail.Claim?
  /// The next page not before then: the rate.
  var due: Date
  /// How many times in a row the member after `after` could not be decided (their update failed):
  /// tried again at the next step, skipped after `NoticeSender.attempts`.
  var failures: Int?

  var survey: SurveyID? {
    reason.hasPrefix("invite-") || reason.hasPrefix("remind-") ? SurveyID(String(reason.dropFirst(7))) : nil
  }
  var isReminder: Bool { reason.hasPrefix("remind-") }
}

/// The passes under way (`run-<reason>`) and those finished (`done-<reason>`): a reason runs once.
struct NoticeRuns: Sendable {
  let backend: any RecordBackend
  private let runs: Records<RecordName, NoticeRun>

  init(_ backend: any RecordBackend) {
    self.backend = backend
    runs = Records(backend.table(.noticeRuns))
  }

  /// Starts the pass for `reason` unless it ran or runs; whether it started.
  @discardableResult
  func start(_ reason: String, at now: Date) async throws -> Bool {
    try await backend.holding("notice-run:" + reason) {
      guard try await runs.read(RecordName("done-", reason)) == nil else { return false }
      return try await runs.create(
        NoticeRun(reason: reason, progress: InvitationProgress(started: now), due: now), as: RecordName("run-", reason)
      )
    }
  }

  func active() async throws -> [NoticeRun] {
    try await runs.all(prefixed: "run-")
  }

  /// How the pass for `reason` stands, under way or finished.
  func progress(of reason: String) async throws -> InvitationProgress? {
    if let run = try await runs.read(RecordName("run-", reason)) { return run.record.progress }
    return try await runs.read(RecordName("done-", reason))?.record.progress
  }

  /// Takes the next page of `run` for `process` until `until`, if it is due and nobody holds it.
  func claim(_ run: NoticeRun, for process: String, at now: Date, until: Date) async throws -> NoticeRun? {
    try await runs.modify(RecordName("run-", run.reason)) { current in
      guard var current, current.due <= now, (current.claim?.until ?? .distantPast) <= now else { return (nil, nil) }
      current.claim = QueuedMail.Claim(by: process, until: until)
      return (current, current)
    }
  }

  /// Records a page done (`run` as it left it), due again at `due`; `false` when its claim ran
  /// out meanwhile (another process does the page again: each member's update sends once).
  @discardableResult
  func advance(_ run: NoticeRun, by process: String, due: Date) async throws -> Bool {
    try await runs.modify(RecordName("run-", run.reason)) { current in
      guard let current, current.claim?.by == process else { return (nil, false) }
      var next = run
      (next.claim, next.due) = (nil, due)
      return (next, true)
    }
  }

  /// Ends the pass: it runs no more, and its progress stays for the dashboard.
  func finish(_ run: NoticeRun, at now: Date) async throws {
    try await backend.holding("notice-run:" + run.reason) {
      guard let current = try await runs.storage.readForUpdate(RecordName("run-", run.reason).recordName) else { return }
      var done = run
      (done.claim, done.progress.finished) = (nil, now)
      _ = try await runs.delete(RecordName("run-", run.reason), at: current.version)
      _ = try await runs.create(done, as: RecordName("done-", run.reason))
    }
  }
}

/// Moves every pass under way on by a page a second, in whichever processes run it (one at a time
/// holds a pass), and starts each day's expiry warnings. A member's update decides whether they
/// are written to, and writes the message with the note that they were: killed between, a page
/// is done again and sends nothing twice.
struct NoticeSender: Sendable {
  let runs: NoticeRuns
  let accounts: AccountRecords
  let loop: RequestLoop
  let process: String
  let now: @Sendable () -> Date
  let logger: Logger
  /// Messages a pass queues at most a second; it looks at ten times as many members.
  var rate = 20
  var lease: TimeInterval = 60
  /// How long a pass waits for its survey to reach this process's catalog (read again each
  /// second) before it counts it as gone.
  var surveyWait: TimeInterval = 600
  /// Times a member's update is tried before the pass goes on without them.
  static let attempts = 3

  static func invitations(for survey: SurveyID) -> String { "invite-" + survey.rawValue }
  static func reminders(for survey: SurveyID) -> String { "remind-" + survey.rawValue }

  /// One step: today's expiry pass and the reminders now due started, then a page of each pass
  /// that is due.
  func step() async throws {
    let now = now()
    try await runs.start("expiry-" + Day(now, in: .tokyo).iso, at: now)
    // A survey that invited, open, its deadline near: its reminder pass, once.
    for survey in try await loop.catalog.fetchAll() where survey.expiresAt.map({ $0 > now && $0.timeIntervalSince(now) <= Notices.reminderLead }) == true {
      let reason = Self.reminders(for: survey.id)
      guard try await runs.progress(of: reason) == nil, try await runs.progress(of: Self.invitations(for: survey.id)) != nil else { continue }
      try await runs.start(reason, at: now)
    }
    for run in try await runs.active() {
      do {
        try await page(of: run)
      } catch {
        logger.warning("a notice pass stopped for now", metadata: ["run": "\(run.reason)", "error": "\(error)"])
      }
    }
  }

  private func page(of waiting: NoticeRun) async throws {
    let start = now()
    guard var run = try await runs.claim(waiting, for: process, at: start, until: start.addingTimeInterval(lease)) else { return }
    var survey: Survey?
    if let id = run.survey {
      // With its places counted: a survey full (or all its cells) invites and reminds no more.
      survey = try await loop.quotas.counted(loop.catalog.fetchAll().filter { $0.id == id }).first
      switch survey?.status(at: start) {
      case .scheduled?:
        // Invitations go once it opens.
        try await runs.advance(run, by: process, due: start.addingTimeInterval(10))
        return
      case nil where start.timeIntervalSince(run.progress.started) < surveyWait:
        // Published by another process (whose catalog this one reads within a second), or about
        // to be: the pass starts before the publication.
        try await runs.advance(run, by: process, due: start.addingTimeInterval(2))
        return
      case .open?:
        break
      case nil, .closed?, .full?:
        try await runs.finish(run, at: start)
        return
      }
    }
    // Read `rate` accounts at a time, at most ten times as many a page: a page that invites
    // everyone it looks at reads no more than it uses (10,000 accounts read for 1,000 used made
    // the pass's every step ten times dearer).
    var (sent, examined, reachedEnd) = (0, 0, false)
    chunks: while sent < rate, examined < rate * 10 {
      let asked = min(rate, rate * 10 - examined)
      let found = try await accounts.records(prefixed: "", after: run.after, limit: asked)
      for account in found {
        if account.verifiedAt != nil, let email = EmailAddress(account.email) {
          let action: AppFeature.Action = switch survey {
          case let survey? where run.isReminder: .notifications(.reminderDue(survey, to: email))
          case let survey?: .notifications(.invitationDue(survey, to: email))
          case nil: .notifications(.expiryCheckDue(to: email))
          }
          do {
            if try await loop.send(action, to: account.user)?.outbox.isEmpty == false { sent += 1 }
            run.failures = nil
          } catch where (run.failures ?? 0) + 1 < Self.attempts {
            // Their update failed (the deadline, a request of theirs at the same moment): the page
            // stops before them, and the next step tries them again.
            run.failures = (run.failures ?? 0) + 1
            logger.warning("a member's notice could not be decided: tried again", metadata: ["run": "\(run.reason)", "user": "\(account.user)", "error": "\(error)"])
            break chunks
          } catch {
            // Again and again (their state unreadable): the pass goes on without them.
            run.failures = nil
            logger.error("a member's notice could not be decided: skipped", metadata: ["run": "\(run.reason)", "user": "\(account.user)", "error": "\(error)"])
          }
        }
        run.after = account.id
        run.progress.examined += 1
        examined += 1
        if sent >= rate { break chunks }
      }
      // The end: a read that finds none after the last looked at. (Not a read that finds fewer
      // than asked: on files an account deleted between the listing and its reading is left out
      // of it, and more may follow.)
      if found.isEmpty { reachedEnd = true; break }
    }
    run.progress.sent += sent
    if reachedEnd && run.failures == nil {
      try await runs.finish(run, at: now())
      logger.info("notice pass finished", metadata: ["run": "\(run.reason)", "examined": "\(run.progress.examined)", "sent": "\(run.progress.sent)"])
    } else {
      // The rate is the messages': a page that sent none leaves the next one due at once (at the
      // next step).
      try await runs.advance(run, by: process, due: sent > 0 || run.failures != nil ? start.addingTimeInterval(1) : start)
    }
  }
}
