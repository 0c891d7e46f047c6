import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// An SMTP server as the mail goes out (RFC 5321): a connection per message, STARTTLS before
/// anything is said that matters (required unless turned off), AUTH PLAIN or LOGIN when
/// credentials are set, 8-bit bodies where the server takes them. A refusal of the message (at
/// MAIL, RCPT, DATA or its end) is a `MailRefusal`; anything else that goes wrong (the server out
/// of reach, silent past the deadline, refusing our credentials) is tried again later.
struct SMTPTransport: MailTransport {
  let server: SMTPServer
  let settings: MailSettings
  private let tls: NIOSSLContext?

  init(_ server: SMTPServer, settings: MailSettings) throws {
    self.server = server
    self.settings = settings
    guard server.startTLS else {
      tls = nil
      return
    }
    var configuration = TLSConfiguration.makeClientConfiguration()
    if let file = server.trustedCertificates { configuration.trustRoots = .file(file) }
    tls = try NIOSSLContext(configuration: configuration)
  }

  func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws {
    let replies = Replies()
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .connectTimeout(.seconds(10))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(replies) }
      }
      .connect(host: server.host, port: server.port).get()
    // Past the deadline the connection closes, and whatever waits for an answer fails.
    let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(server.deadline.components.seconds) * 1_000_000_000)) {
      channel.close(promise: nil)
    }
    defer {
      deadline.cancel()
      channel.close(promise: nil)
    }
    let talk = Conversation(channel: channel, replies: replies)
    try await talk.expect(nil, 220, step: "greeting")
    var features = try await talk.expect("EHLO \(settings.domain)", 250, step: "EHLO")
    if let tls {
      guard features.offers("STARTTLS") else { throw SMTPFailure("the server does not offer STARTTLS") }
      try await talk.expect("STARTTLS", 220, step: "STARTTLS")
      // Nothing said before the handshake may pass for an answer after it (a man in the middle
      // could queue replies there).
      guard try await channel.eventLoop.submit({ replies.isDrained }).get() else {
        throw SMTPFailure("the server said more after STARTTLS's 220")
      }
      // SNI takes a name, never an address.
      let host = server.host.contains(":") || server.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : server.host
      try await channel.eventLoop.submit {
        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: host), position: .first)
      }.get()
      features = try await talk.expect("EHLO \(settings.domain)", 250, step: "EHLO")
    }
    if let username = server.username, let password = server.password {
      // Errors name the step, never the command: the credentials would reach the log.
      let mechanisms = features.parameters(of: "AUTH")
      if mechanisms.contains("PLAIN") {
        try await talk.expect("AUTH PLAIN " + Data("\0\(username)\0\(password)".utf8).base64EncodedString(), 235, step: "AUTH PLAIN")
      } else if mechanisms.contains("LOGIN") {
        try await talk.expect("AUTH LOGIN", 334, step: "AUTH LOGIN")
        try await talk.expect(Data(username.utf8).base64EncodedString(), 334, step: "AUTH LOGIN (user name)")
        try await talk.expect(Data(password.utf8).base64EncodedString(), 235, step: "AUTH LOGIN (password)")
      } else {
        throw SMTPFailure("the server offers no AUTH mechanism we speak (PLAIN, LOGIN)")
      }
    }
    // A refusal of the sender or of DATA is the server's with us (settings, policy), not this
    // message's: tried again later, never dropped. The recipient's, and the message's own, are.
    let eightBit = features.offers("8BITMIME")
    // An address beyond ASCII (the product takes them) goes only through a server that takes it
    // (SMTPUTF8, RFC 6531); sent raw to any other, it would be mangled or refused: refused here,
    // for good, before a byte of it leaves.
    let international = !message.to.allSatisfy(\.isASCII)
    if international && !features.offers("SMTPUTF8") {
      throw MailRefusal(code: 553, reply: "not sent: the server does not take addresses beyond ASCII (no SMTPUTF8)")
    }
    let parameters = (eightBit ? " BODY=8BITMIME" : "") + (international ? " SMTPUTF8" : "")
    try await talk.expect("MAIL FROM:<\(settings.fromAddress)>" + parameters, 250, step: "MAIL FROM")
    try await talk.expect("RCPT TO:<\(message.to)>", 250, 251, step: "RCPT TO", refusesMessage: true)
    try await talk.expect("DATA", 354, step: "DATA")
    try await channel.writeAndFlush(ByteBuffer(bytes: Self.dotStuffed(MailFormat.bytes(of: message, settings: settings, eightBit: eightBit))))
    // The server takes the message with the final dot: noted before it goes, never sent again.
    try await handingOver()
    try await channel.writeAndFlush(ByteBuffer(bytes: Array(".\r\n".utf8)))
    try await talk.expect(nil, 250, step: "end of data", refusesMessage: true)
    _ = try? await talk.expect("QUIT", 221, step: "QUIT")
  }

  /// A line that begins with "." gets another, so that none ends the data early (RFC 5321 4.5.2).
  static func dotStuffed(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + 16)
    var lineStart = true
    for byte in bytes {
      if lineStart && byte == UInt8(ascii: ".") { out.append(byte) }
      out.append(byte)
      lineStart = byte == 10
    }
    return out
  }
}

/// The SMTP server mail goes out through, and how to speak to it.
public struct SMTPServer: Sendable, Equatable {
  public var host: String
  public var port: Int
  /// Insist on STARTTLS (the default); off only for a relay on the same machine.
  public var startTLS = true
  /// PEM certificates to trust instead of the system's (a test's own authority).
  public var trustedCertificates: String?
  public var username: String?
  public var password: String?
  /// How long one message's whole conversation may take.
  public var deadline = Duration.seconds(30)

  public init(host: String, port: Int = 587) {
    self.host = host
    self.port = port
  }
}

/// Why a conversation with the server went wrong, other than a refusal of the message.
struct SMTPFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// A server's reply: its code and lines.
struct SMTPReply: Sendable {
  let code: Int
  let lines: [String]

  /// Whether EHLO's reply lists `keyword`.
  func offers(_ keyword: String) -> Bool {
    lines.contains { $0.uppercased() == keyword || $0.uppercased().hasPrefix(keyword + " ") }
  }

  /// The parameters EHLO's reply gives `keyword` (`AUTH PLAIN LOGIN`: PLAIN, LOGIN).
  func parameters(of keyword: String) -> [String] {
    lines.first { $0.uppercased().hasPrefix(keyword + " ") }.map { $0.uppercased().split(separator: " ").dropFirst().map(String.init) } ?? []
  }
}

/// Commands out, replies in, one at a time.
private struct Conversation {
  let channel: any Channel
  let replies: Replies

  /// Sends `command` (if any) and waits for the reply: one of `codes`, or it throws a refusal
  /// (`refusesMessage`: this message's) or a failure of the conversation, named by `step`.
  @discardableResult
  func expect(_ command: String?, _ codes: Int..., step: String, refusesMessage: Bool = false) async throws -> SMTPReply {
    let replies = replies
    let answer = try await channel.eventLoop.flatSubmit { [channel] in
      let next = replies.next(on: channel.eventLoop)
      if let command { channel.writeAndFlush(ByteBuffer(string: command + "\r\n"), promise: nil) }
      return next
    }.get()
    guard !codes.contains(answer.code) else { return answer }
    let words = answer.lines.joined(separator: " ")
    if refusesMessage, (400..<600).contains(answer.code) { throw MailRefusal(code: answer.code, reply: words) }
    throw SMTPFailure("\(step): \(answer.code) \(words)")
  }
}

/// The replies as they arrive: lines gathered up to a reply's last (`250 ok` after `250-…`), each
/// reply kept for the next waiter. Touched only on its channel's event loop.
private final class Replies: ChannelInboundHandler, @unchecked Sendable {
  typealias InboundIn = ByteBuffer

  private var partial: [UInt8] = []
  private var lines: [String] = []
  private var arrived: [SMTPReply] = []
  private var waiting: [EventLoopPromise<SMTPReply>] = []
  private var ended: (any Error)?

  /// No reply, nor part of one, waits to be read.
  var isDrained: Bool { arrived.isEmpty && partial.isEmpty && lines.isEmpty }

  func next(on loop: any EventLoop) -> EventLoopFuture<SMTPReply> {
    if !arrived.isEmpty { return loop.makeSucceededFuture(arrived.removeFirst()) }
    if let ended { return loop.makeFailedFuture(ended) }
    let promise = loop.makePromise(of: SMTPReply.self)
    waiting.append(promise)
    return promise.futureResult
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    partial += buffer.readBytes(length: buffer.readableBytes) ?? []
    while let end = partial.firstIndex(of: 10) {
      let line = String(decoding: partial[..<end].filter { $0 != 13 }, as: UTF8.self)
      partial.removeSubrange(...end)
      lines.append(line)
      let bytes = Array(line.utf8)
      if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { continue }
      guard let code = Int(line.prefix(3)), (200..<600).contains(code) else {
        fail(SMTPFailure("not an SMTP reply: \(line.prefix(80))"))
        context.close(promise: nil)
        return
      }
      let reply = SMTPReply(code: code, lines: lines.map { String($0.dropFirst(4)) })
      lines = []
      if waiting.isEmpty { arrived.append(reply) } else { waiting.removeFirst().succeed(reply) }
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    fail(SMTPFailure("the server closed the connection"))
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    fail(error)
    context.close(promise: nil)
  }

  private func fail(_ error: any Error) {
    if ended == nil { ended = error }
    for promise in waiting { promise.fail(error) }
    waiting = []
  }
}
