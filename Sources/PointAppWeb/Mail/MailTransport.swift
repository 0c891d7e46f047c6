import Foundation

/// Where messages go: the outbox folder (the default) or an SMTP server.
protocol MailTransport: Sendable {
  /// Hands `message` over. Throws `MailRefusal` for a server's refusal (4xx: tried again later;
  /// 5xx: for good), any other error when the server could not be reached or stopped answering
  /// (tried again). `handingOver` runs before the byte that makes the server take the message
  /// (SMTP's final dot): what a process killed after it knows of the message is that it may have
  /// gone, and it must not go twice. When it throws, the message is not handed over.
  func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws
}

/// A server's refusal: its code and words.
struct MailRefusal: Error, Equatable, CustomStringConvertible {
  let code: Int
  let reply: String
  /// 5xx: the message is never tried again.
  var isPermanent: Bool { code >= 500 }
  var description: String { "\(code) \(reply)" }
}

/// Messages as files, one `.eml` each (`<queue name>.eml`, RFC 5322 as it would be sent) in a
/// folder of the data folder: what the server does on its embedded defaults. Writing a message
/// again replaces its file with the same bytes, so that it is there once however often it is
/// handed over.
struct OutboxFolder: MailTransport {
  let folder: URL
  let settings: MailSettings

  init(_ folder: URL, settings: MailSettings) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    self.folder = folder
    self.settings = settings
  }

  /// Written again, the same file: nothing to note before.
  func deliver(_ message: QueuedMail, handingOver: @Sendable () async throws -> Void) async throws {
    let path = folder.appendingPathComponent(message.name.recordName + ".eml").path
    try DurableFile.write(Data(MailFormat.bytes(of: message, settings: settings)), to: path)
  }
}
