import Foundation
import Logging
import PointApp
@testable import PointAppWeb
import ServiceLifecycleTestKit
import Synchronization
import Testing

/// The mail queue and its sender: a message delivered once, a temporary refusal tried again after
/// a backoff, a permanent one recorded, across processes sharing the queue; the outbox folder;
/// and a real SMTP server (aiosmtpd) with STARTTLS and AUTH.
struct MailTests {
  /// A clock the test moves.
  final class Clock: Sendable {
    let now = Mutex(noon)
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
  }

  /// Delivers into memory, refusing as told; or, `droppingAnswer`, takes the message and loses
  /// the connection before the server's answer.
  final class Recorder: MailTransport {
    let delivered = Mutex<[QueuedMail]>([])
    let refusal: MailRefusal?
    let droppingAnswer: Bool
    init(refusing refusal: MailRefusal? = nil, droppingAnswer: Bool = false) { (self.refusal, self.droppingAnswer) = (refusal, droppingAnswer) }
    func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws {
      try await Task.sleep(for: .milliseconds(1))
      try await handingOver()
      if let refusal { throw refusal }
      delivered.withLock { $0.append(message) }
      if droppingAnswer { throw SMTPFailure("the connection closed") }
    }
  }

  /// A message queued at `date`: by default within a second, as the record keeps it only to the second.
  static func message(to address: String = "hanako@example.jp", at date: Date = noon.addingTimeInterval(0.4321)) -> QueuedMail {
    QueuedMail(
      id: hex(randomBytes(16)), user: UserID.random(), kind: "verification", to: address, subject: "【PointApp】メールアドレスの確認",
      body: "確認してください。\n.行頭の点\nhttps://example.jp/account/verify?token=abc", queued: date
    )
  }

  static func sender(_ queue: MailQueue, _ transport: any MailTransport, clock: Clock, process: String = "a") -> MailSender {
    MailSender(queue: queue, transport: transport, process: process, now: clock.read, logger: Logger(label: "mail-tests"))
  }

  typealias Kind = BackendContractTests.Kind

  /// A backend of `kind` of its own (on PostgreSQL a new database: the sender takes every message).
  static func backend(_ kind: Kind) async throws -> any RecordBackend {
    if kind == .postgres {
      guard TestDatabase.enabled else { return try await kind.backend() }  // reported skipped
      return PostgresBackend(try await TestDatabase.make())
    }
    return try await kind.backend()
  }

  @Test(arguments: Kind.allCases)
  func aMessageIsDeliveredOnceAndLoggedWithoutItsAddress(kind: Kind) async throws {
    let queue = MailQueue(try await Self.backend(kind))
    let clock = Clock()
    let message = Self.message()
    try await queue.backend.holding("queueing") { try await queue.add([message]) }
    let recorder = Recorder()
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 1)
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 0)
    #expect(recorder.delivered.withLock { $0.map(\.id) } == [message.id])
    #expect(try await queue.waiting(after: nil).isEmpty)
    let outcome = try #require(try await queue.outcome(message.id))
    #expect(outcome.delivered && outcome.attempts == 1 && outcome.reply == nil)
    #expect(!String(decoding: try SavedJSON.encode(outcome), as: UTF8.self).contains("hanako"), "the log keeps no address")
  }

  @Test(arguments: Kind.allCases)
  func processesSweepingTogetherDeliverEachMessageOnce(kind: Kind) async throws {
    let backend = try await Self.backend(kind)
    let queue = MailQueue(backend)
    let clock = Clock()
    let messages = (0..<40).map { _ in Self.message() }
    try await queue.add(messages)
    let recorder = Recorder()
    let delivered = try await withThrowingTaskGroup(of: Int.self) { group in
      for process in ["a", "b", "c", "d"] {
        group.addTask { try await Self.sender(MailQueue(backend), recorder, clock: clock, process: process).sweep() }
      }
      return try await group.reduce(0, +)
    }
    #expect(delivered == 40)
    #expect(recorder.delivered.withLock { $0.map(\.id).sorted() } == messages.map(\.id).sorted())
  }

  @Test func aTemporaryRefusalIsTriedAgainAfterABackoffAndAPermanentOneIsRecorded() async throws {
    let queue = MailQueue(MemoryBackend())
    let clock = Clock()
    let busy = Self.message(to: "busy@example.jp")
    try await queue.add([busy])
    #expect(try await Self.sender(queue, Recorder(refusing: MailRefusal(code: 451, reply: "try later")), clock: clock).sweep() == 0)
    let waiting = try #require(try await queue.waiting(after: nil).first)
    #expect(waiting.attempts == 1 && waiting.claim == nil && waiting.lastReply == "451 try later")
    // 22.5 s to 30 s, kept to the second.
    #expect(waiting.due >= noon.addingTimeInterval(22) && waiting.due <= noon.addingTimeInterval(30), "\(waiting)")
    // Not before it is due, then once.
    let recorder = Recorder()
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 0)
    clock.advance(30)
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 1)
    #expect(try await queue.outcome(busy.id)?.attempts == 2)

    let unknown = Self.message(to: "nobody@example.jp")
    try await queue.add([unknown])
    #expect(try await Self.sender(queue, Recorder(refusing: MailRefusal(code: 550, reply: "<Nobody@example.jp>: no such mailbox")), clock: clock).sweep() == 0)
    let refused = try #require(try await queue.outcome(unknown.id))
    // The server's words, kept without the address it quoted.
    #expect(!refused.delivered && refused.reply == "550 <n•••@example.jp>: no such mailbox")
    #expect(try await queue.waiting(after: nil).isEmpty)
    // The desk lists it, and only it: the delivered one is no refusal.
    #expect(try await queue.refusals().map(\.id) == [unknown.id])
  }

  @Test func aMessageNeverTakenIsGivenUpAfterThreeDays() async throws {
    let queue = MailQueue(MemoryBackend())
    let clock = Clock()
    let message = Self.message()
    try await queue.add([message])
    let down = Recorder(refusing: MailRefusal(code: 421, reply: "closing"))
    var attempts = 0
    while try await queue.outcome(message.id) == nil {
      try await Self.sender(queue, down, clock: clock).sweep()
      clock.advance(3600)
      attempts += 1
    }
    #expect(attempts >= 70 && attempts <= 74, "hourly at most, for three days")
    #expect(try await queue.outcome(message.id)?.reply?.hasPrefix("gave up after") == true)
  }

  @Test func aClaimKeepsOtherProcessesOffUntilItRunsOut() async throws {
    let queue = MailQueue(MemoryBackend())
    let message = Self.message()
    try await queue.add([message])
    #expect(try await queue.claim(message, for: "a", at: noon, until: noon.addingTimeInterval(120)) != nil)
    #expect(try await queue.claim(message, for: "b", at: noon.addingTimeInterval(60), until: noon.addingTimeInterval(180)) == nil)
    let taken = try await queue.claim(message, for: "b", at: noon.addingTimeInterval(121), until: noon.addingTimeInterval(241))
    #expect(taken?.attempts == 2 && taken?.claim?.by == "b")
  }

  @Test func aMessageHandedOverIsNeverSentAgain() async throws {
    let queue = MailQueue(MemoryBackend())
    let clock = Clock()
    // The server took it and the answer was lost: ended as delivered, not tried again.
    let lost = Self.message()
    try await queue.add([lost])
    let dropping = Recorder(droppingAnswer: true)
    #expect(try await Self.sender(queue, dropping, clock: clock).sweep() == 1)
    #expect(try await queue.outcome(lost.id)?.delivered == true)
    #expect(try await queue.outcome(lost.id)?.reply?.contains("answer not heard") == true)
    // A process noted the hand-over and died: the next claim ends it without sending it.
    let orphan = Self.message()
    try await queue.add([orphan])
    let claimed = try #require(try await queue.claim(orphan, for: "dead", at: noon, until: noon.addingTimeInterval(120)))
    #expect(try await queue.handingOver(claimed, by: "dead", at: noon))
    clock.advance(121)
    let recorder = Recorder()
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 1)
    #expect(recorder.delivered.withLock { $0.isEmpty })
    #expect(try await queue.outcome(orphan.id)?.delivered == true)
    // A claim that ran out is not the process's to hand over.
    let late = Self.message()
    try await queue.add([late])
    let taken = try #require(try await queue.claim(late, for: "a", at: clock.read(), until: clock.read().addingTimeInterval(1)))
    #expect(try await queue.handingOver(taken, by: "a", at: clock.read().addingTimeInterval(2)) == false)
    #expect(try await queue.handingOver(taken, by: "b", at: clock.read()) == false)
  }

  @Test func aStopEndsTheSweepAfterTheMessageInHandAndTheRestWaitForTheNext() async throws {
    let queue = MailQueue(MemoryBackend())
    let clock = Clock()
    let account = (0..<3).map { Self.message(at: noon.addingTimeInterval(Double($0))) }
    let notices = (3..<6).map { index in
      var notice = Self.message(at: noon.addingTimeInterval(Double(index)))
      notice.unsubscribe = "https://example.jp/unsubscribe?token=t&list=invitations"
      return notice
    }
    try await queue.add(account + notices)
    clock.advance(20)
    let recorder = Recorder()
    // The stop comes while the second message goes: it is delivered, nothing after it.
    let delivered = try await testGracefulShutdown { stop in
      try await Self.sender(queue, Stopping(recorder, after: 2, stop: stop.triggerGracefulShutdown), clock: clock).sweep()
    }
    #expect(delivered == 2)
    #expect(recorder.delivered.withLock { $0.map(\.id) } == account[..<2].map(\.id))
    #expect(try await queue.waiting(after: nil).map(\.id) == [account[2].id])
    #expect(try await queue.waiting(bulk: true, after: nil).count == 3)
    #expect(try await Self.sender(queue, recorder, clock: clock).sweep() == 4)
    #expect(recorder.delivered.withLock { $0.map(\.id) } == (account + notices).map(\.id))
  }

  /// Another transport's deliveries; the `after`th calls `stop` first.
  final class Stopping: MailTransport {
    let next: any MailTransport
    let after: Int
    let stop: @Sendable () -> Void
    let count = Mutex(0)
    init(_ next: any MailTransport, after: Int, stop: @escaping @Sendable () -> Void) { (self.next, self.after, self.stop) = (next, after, stop) }
    func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws {
      if count.withLock({ $0 += 1; return $0 }) == after { stop() }
      try await next.deliver(message, handingOver: handingOver)
    }
  }

  /// Delivers into memory; the `n`th delivery first queues `then` (mail asked for meanwhile).
  final class Arrivals: MailTransport {
    let delivered = Mutex<[QueuedMail]>([])
    let queue: MailQueue
    let after: Int
    let then: QueuedMail
    init(_ queue: MailQueue, after: Int, then: QueuedMail) { (self.queue, self.after, self.then) = (queue, after, then) }
    func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws {
      try await handingOver()
      if delivered.withLock({ $0.append(message); return $0.count }) == after { try await queue.add([then]) }
    }
  }

  @Test func theAccountsOwnMailGoesBeforeNoticesEvenWhenItComesAmongThem() async throws {
    let queue = MailQueue(MemoryBackend())
    let clock = Clock()
    let notices = (0..<5).map { index in
      var notice = Self.message(at: noon.addingTimeInterval(Double(index)))
      notice.unsubscribe = "https://example.jp/unsubscribe?token=t&list=invitations"
      return notice
    }
    let account = Self.message(at: noon.addingTimeInterval(10))
    let later = Self.message(at: noon.addingTimeInterval(11))
    try await queue.add(notices + [account])
    // A reset asked for while the second notice goes: it goes before the third.
    let transport = Arrivals(queue, after: 3, then: later)
    var sender = Self.sender(queue, transport, clock: clock)
    sender.bulkPerSweep = 2
    clock.advance(20)
    #expect(try await sender.sweep() == 7)
    #expect(transport.delivered.withLock { $0.map(\.id) } == [account.id, notices[0].id, notices[1].id, later.id] + notices[2...].map(\.id))
    #expect(try await sender.sweep() == 0)
  }

  @Test func aNoticeToAMemberWhoLeftMovedOrStoppedItsListSinceIsNotSent() async throws {
    let backend = MemoryBackend()
    let queue = MailQueue(backend)
    let members = AccountRecords(backend.table(.accounts))
    let clock = Clock()
    func notice(to address: String, list: NoticeList = .invitations) -> QueuedMail {
      var notice = Self.message(to: address)
      (notice.unsubscribe, notice.list) = ("https://example.jp/unsubscribe?token=t&list=\(list.rawValue)", list)
      return notice
    }
    func account(_ address: String, of user: UserID) async throws {
      _ = try await members.create(Account(email: address, passwordHash: "-", user: user, created: noon), as: AccountID(email: address))
    }
    let staying = notice(to: "hanako@example.jp"), left = notice(to: "taro@example.jp"), moved = notice(to: "jiro@example.jp")
    let stopped = notice(to: "saburo@example.jp"), warned = notice(to: "shiro@example.jp", list: .expiry)
    for member in [staying, stopped, warned] { try await account(member.to, of: member.user!) }
    // Taro left (no account); another member has Jiro's old address now.
    try await account(moved.to, of: UserID.random())
    // Saburo stopped invitations after his was queued; Shiro stopped them too, not the expiry warnings.
    var quiet = AppFeature.State()
    _ = quiet.progress.setNotices(.invitations, on: false)
    for user in [stopped.user!, warned.user!] { try await UserStates(backend).replace(user, with: quiet) }
    try await queue.add([staying, left, moved, stopped, warned])
    let recorder = Recorder()
    var sender = Self.sender(queue, recorder, clock: clock)
    sender.audience = NoticeAudience(accounts: members, users: UserStates(backend))
    clock.advance(1)
    #expect(try await sender.sweep() == 2)
    #expect(Set(recorder.delivered.withLock { $0.map(\.id) }) == [staying.id, warned.id])
    for unsent in [left, moved, stopped] { #expect(try await queue.outcome(unsent.id)?.delivered == false) }
    #expect(try await queue.waiting(bulk: true, after: nil).isEmpty)
    #expect(try await queue.refusals().isEmpty, "not the member's server's refusal: not on the desk")
  }

  /// A member's settings that cannot be read at delivery put the notice back for later (as a
  /// server out of reach does); it goes once they can.
  @Test func aNoticeWhoseMembersSettingsCannotBeReadIsTriedAgainLater() async throws {
    let backend = MemoryBackend()
    let queue = MailQueue(backend)
    let members = AccountRecords(backend.table(.accounts))
    let clock = Clock()
    var notice = Self.message(to: "hanako@example.jp")
    (notice.unsubscribe, notice.list) = ("https://example.jp/unsubscribe?token=t&list=invitations", .invitations)
    let user = try #require(notice.user)
    _ = try await members.create(Account(email: notice.to, passwordHash: "-", user: user, created: noon), as: AccountID(email: notice.to))
    #expect(try await backend.table(.users).create(user.rawValue, Data("not a saved state".utf8)))
    try await queue.add([notice])
    let recorder = Recorder()
    var sender = Self.sender(queue, recorder, clock: clock)
    sender.audience = NoticeAudience(accounts: members, users: UserStates(backend))
    clock.advance(1)
    #expect(try await sender.sweep() == 0)
    let waiting = try #require(try await queue.waiting(bulk: true, after: nil).first)
    #expect(waiting.claim?.until ?? .distantPast <= clock.read() && waiting.due > clock.read(), "put back, due after a backoff")
    try await UserStates(backend).replace(user, with: AppFeature.State())
    clock.advance(60)
    #expect(try await sender.sweep() == 1)
    #expect(recorder.delivered.withLock { $0.map(\.id) } == [notice.id])
  }

  /// What the sender looks up at delivery comes with the message: a notice names its list, the
  /// account's own mail none.
  @Test func aNoticeIsQueuedWithItsListAndTheAccountsOwnMailWithNone() async throws {
    let renderer = try await PageRenderer(directory: repositoryRoot.appendingPathComponent("Templates"), stylesheet: "/styles.css")
    let outbox = MailOutbox(queue: MailQueue(MemoryBackend()), accounts: AccountRecords(InMemoryRecordStorage()), renderer: renderer, settings: MailSettings(), unsubscribeToken: { _ in "t" })
    let (hanako, user) = (try #require(EmailAddress("hanako@example.jp")), UserID.random())
    let warning = outbox.compose(MailRequest(to: hanako, .expiryWarning([ExpiringPoints(month: Month(year: 2025, month: 12), amount: 60)])), for: user, at: noon)
    #expect(warning.list == .expiry && warning.isBulk && warning.unsubscribe?.hasSuffix("&list=expiry") == true)
    let reset = outbox.compose(MailRequest(to: hanako, .passwordReset(token: "x", requestedAt: noon, expires: noon)), for: user, at: noon)
    #expect(reset.list == nil && !reset.isBulk)
  }

  @Test func theOutboxFolderHoldsEachMessageOnceAsRFC5322() async throws {
    let folder = scratch("outbox")
    defer { try? FileManager.default.removeItem(at: folder) }
    let outbox = try OutboxFolder(folder, settings: MailSettings())
    let message = Self.message()
    try await outbox.deliver(message) {}
    try await outbox.deliver(message) {}
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
    #expect(files == [message.name.recordName + ".eml"])
    let text = try String(contentsOf: folder.appendingPathComponent(files[0]), encoding: .utf8)
    #expect(text.contains("Message-ID: <\(message.id)@pointapp.example>\r\n"))
    #expect(text.contains("Subject: =?UTF-8?B?"))
    #expect(text.contains("Date: Fri, 23 Nov 2026 21:00:00 +0900\r\n") || text.contains("+0900\r\n"))
    #expect(text.contains("\r\n\r\n確認してください。\r\n"))
  }

  @Test func japaneseSubjectsAreEncodedWordsOfAtMost75Characters() {
    let subject = String(repeating: "ポイント失効のお知らせ", count: 6)
    let encoded = MailFormat.encodedWords(subject)
    let words = encoded.components(separatedBy: "\r\n ")
    #expect(words.count > 1)
    #expect(words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") })
    let decoded = words.map { word in
      String(decoding: Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))!, as: UTF8.self)
    }.joined()
    #expect(decoded == subject, "no character split between words")
    #expect(MailFormat.encodedWords("Hello") == "Hello")
  }

  @Test func linesThatBeginWithADotAreStuffed() {
    #expect(SMTPTransport.dotStuffed(Array("a\r\n.b\r\n..c\r\n".utf8)) == Array("a\r\n..b\r\n...c\r\n".utf8))
  }
}

/// The tests' SMTP server (`Scripts/smtp-test-server.py`, aiosmtpd), a process of its own.
final class SMTPTestServer: Sendable {
  static let environment = ProcessInfo.processInfo.environment
  /// CI sets `POINTAPP_TEST_SMTP=required`; elsewhere the cases run where aiosmtpd is installed.
  static let available: Bool = {
    if environment["POINTAPP_TEST_SMTP"] == "required" { return true }
    // Not `Process.waitUntilExit`, which waits on a run loop the test library's threads never run.
    return system("python3 -c 'import aiosmtpd' 2>/dev/null") == 0
  }()
  static let notInstalled: Comment = "needs aiosmtpd (pip install aiosmtpd)"

  let server: ScriptServer
  var folder: URL { server.folder }
  var port: Int { server.port }

  /// Starts one, and returns once it listens (within 30 s, or it throws).
  static func start(tls: Bool = false, auth: String? = nil, smtpUTF8: Bool = false) async throws -> SMTPTestServer {
    let options = (tls ? ["--tls"] : []) + (auth.map { ["--auth", $0] } ?? []) + (smtpUTF8 ? ["--smtputf8"] : [])
    return SMTPTestServer(server: try await ScriptServer.start("smtp-test-server.py", options))
  }

  private init(server: ScriptServer) { self.server = server }

  /// The messages it accepted, as their bytes, in the order they came.
  func messages() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".eml") }.sorted().map {
      try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
    }
  }

  /// Its log: a line per message accepted (Message-ID, recipient).
  func log() throws -> [String] {
    ((try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  func server(startTLS: Bool = false, auth: (String, String)? = nil) -> SMTPServer {
    var server = SMTPServer(host: "localhost", port: port)
    server.startTLS = startTLS
    server.trustedCertificates = startTLS ? folder.appendingPathComponent("cert.pem").path : nil
    (server.username, server.password) = (auth?.0, auth?.1)
    // Roomy: on a busy machine the test server took 13 s over one conversation (a second a step),
    // and past the deadline a message already handed over is ended as delivered, not sent again.
    server.deadline = .seconds(60)
    return server
  }
}

@Suite(.enabled(if: SMTPTestServer.available, SMTPTestServer.notInstalled))
struct SMTPTests {
  @Test func aMessageGoesOutThroughSTARTTLSAndAUTHInJapanese() async throws {
    let smtp = try await SMTPTestServer.start(tls: true, auth: "pointapp:s3cret")
    let queue = MailQueue(MemoryBackend())
    let message = MailTests.message()
    try await queue.add([message])
    let transport = try SMTPTransport(smtp.server(startTLS: true, auth: ("pointapp", "s3cret")), settings: MailSettings())
    #expect(try await MailTests.sender(queue, transport, clock: MailTests.Clock()).sweep() == 1)
    // (If the log is empty, the server's own log says how far the conversation went.)
    #expect(try smtp.log() == ["<\(message.id)@pointapp.example> hanako@example.jp"], "\(smtp.server.errors)")
    let received = try #require(try smtp.messages().first, "\(smtp.server.errors)")
    #expect(received.contains("Subject: =?UTF-8?B?"))
    #expect(received.contains("確認してください。\r\n.行頭の点\r\n"), "8 bits through, the dot unstuffed by the server")
    #expect(try await queue.outcome(message.id)?.delivered == true)
  }

  @Test func wrongCredentialsOrNoTLSLeaveTheMessageQueuedForLater() async throws {
    let smtp = try await SMTPTestServer.start(tls: true, auth: "pointapp:s3cret")
    let queue = MailQueue(MemoryBackend())
    let message = MailTests.message()
    try await queue.add([message])
    let clock = MailTests.Clock()
    let wrong = try SMTPTransport(smtp.server(startTLS: true, auth: ("pointapp", "guess")), settings: MailSettings())
    #expect(try await MailTests.sender(queue, wrong, clock: clock).sweep() == 0)
    let waiting = try #require(try await queue.waiting(after: nil).first)
    #expect(waiting.lastReply?.contains("535") == true, "\(waiting.lastReply ?? "")")
    clock.advance(3600)
    let plain = try SMTPTransport(smtp.server(startTLS: false, auth: ("pointapp", "s3cret")), settings: MailSettings())
    #expect(try await MailTests.sender(queue, plain, clock: clock).sweep() == 0)
    #expect(try await queue.outcome(message.id) == nil)
    #expect(try smtp.log().isEmpty)
  }

  @Test func aServersTemporaryRefusalIsRetriedAndItsPermanentOneRecorded() async throws {
    let smtp = try await SMTPTestServer.start()
    let queue = MailQueue(MemoryBackend())
    let clock = MailTests.Clock()
    let busy = MailTests.message(to: "tempfail-1@example.jp")
    let unknown = MailTests.message(to: "reject@example.jp")
    try await queue.add([busy, unknown])
    let transport = try SMTPTransport(smtp.server(), settings: MailSettings())
    #expect(try await MailTests.sender(queue, transport, clock: clock).sweep() == 0)
    let refused = try #require(try await queue.outcome(unknown.id))
    #expect(!refused.delivered && refused.reply?.hasPrefix("550") == true)
    #expect(try await queue.waiting(after: nil).map(\.lastReply) == ["451 4.3.0 mailbox busy, try again later"])
    clock.advance(30)
    #expect(try await MailTests.sender(queue, transport, clock: clock).sweep() == 1)
    #expect(try smtp.log() == ["<\(busy.id)@pointapp.example> tempfail-1@example.jp"])
  }

  /// An address beyond ASCII reaches a server that takes it (SMTPUTF8); to one that does not, it
  /// is refused for good before it leaves (sent raw, it would be mangled).
  @Test func anAddressBeyondASCIIGoesOnlyThroughAServerThatTakesIt() async throws {
    let clock = MailTests.Clock()
    for takes in [false, true] {
      let smtp = try await SMTPTestServer.start(smtpUTF8: takes)
      let queue = MailQueue(MemoryBackend())
      let message = MailTests.message(to: "はなこ@example.jp")
      try await queue.add([message])
      let transport = try SMTPTransport(smtp.server(), settings: MailSettings())
      #expect(try await MailTests.sender(queue, transport, clock: clock).sweep() == (takes ? 1 : 0))
      let outcome = try #require(try await queue.outcome(message.id))
      #expect(outcome.delivered == takes)
      #expect(try smtp.log() == (takes ? ["<\(message.id)@pointapp.example> はなこ@example.jp"] : []))
      if !takes { #expect(outcome.reply?.hasPrefix("553") == true, "\(outcome.reply ?? "")") }
    }
  }
}
