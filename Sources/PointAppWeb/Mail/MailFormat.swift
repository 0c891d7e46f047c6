import Foundation

/// Who the site's mail is from, and what every message says of the sender (特定電子メール法: the
/// sender's name, a postal address and where to get in touch), with the site's address for links.
public struct MailSettings: Sendable, Equatable {
  public var senderName = "PointApp 運営事務局"
  public var fromAddress = "no-reply@pointapp.example"
  public var postalAddress = "〒100-0005 東京都千代田区丸の内1-1-1"
  public var contact = "support@pointapp.example"
  /// Where the links in messages lead: the site as members reach it.
  public var siteURL = "http://localhost:8080"

  public init() {}

  /// The right part of Message-IDs: the sender's domain.
  var domain: String { fromAddress.split(separator: "@").last.map(String.init) ?? "pointapp" }
}

/// A message as it goes over the wire (RFC 5322, MIME): CRLF lines, headers first, Japanese
/// subjects and names as RFC 2047 encoded words, the body in UTF-8, sent as 8 bits where the
/// server takes them (8BITMIME) and in base64 where it does not.
enum MailFormat {
  static func bytes(of message: QueuedMail, settings: MailSettings, eightBit: Bool = true) -> [UInt8] {
    var headers = [
      "Date: " + date(message.queued),
      "From: " + encodedWords(settings.senderName) + " <\(settings.fromAddress)>",
      "To: <\(message.to)>",
      "Subject: " + encodedWords(message.subject),
      "Message-ID: " + messageID(message, settings: settings),
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=UTF-8",
    ]
    if let unsubscribe = message.unsubscribe {
      // RFC 8058: a mail program stops the list in one click, with a POST to the link.
      headers += ["List-Unsubscribe: <\(unsubscribe)>", "List-Unsubscribe-Post: List-Unsubscribe=One-Click"]
    }
    let body = message.body.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
    var lines: [String]
    if eightBit {
      headers.append("Content-Transfer-Encoding: 8bit")
      lines = body.map(String.init)
    } else {
      headers.append("Content-Transfer-Encoding: base64")
      lines = Data(body.joined(separator: "\r\n").utf8).base64EncodedString(options: .lineLength76Characters)
        .components(separatedBy: "\r\n")
    }
    return Array((headers + [""] + lines).joined(separator: "\r\n").utf8) + [13, 10]
  }

  static func messageID(_ message: QueuedMail, settings: MailSettings) -> String {
    "<\(message.id)@\(settings.domain)>"
  }

  /// RFC 5322's date, in Japan's time.
  static func date(_ date: Date) -> String {
    var style = Date.VerbatimFormatStyle(
      format: "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) +0900",
      timeZone: Calendar.tokyo.timeZone, calendar: Calendar(identifier: .gregorian)
    )
    style.locale = Locale(identifier: "en_US_POSIX")
    return date.formatted(style)
  }

  /// `text` as it may stand in a header: unchanged when it is printable ASCII, otherwise RFC 2047
  /// encoded words (UTF-8, base64) of at most 75 characters each, never splitting a character,
  /// folded onto lines of their own.
  static func encodedWords(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { !(0x20..<0x7f).contains($0.value) }) else { return text }
    var words: [[UInt8]] = []
    var chunk: [UInt8] = []
    for character in text {
      let bytes = Array(String(character).utf8)
      // 45 bytes make 60 characters of base64; with `=?UTF-8?B?` and `?=`, 72.
      if chunk.count + bytes.count > 45 {
        words.append(chunk)
        chunk = []
      }
      chunk += bytes
    }
    if !chunk.isEmpty { words.append(chunk) }
    return words.map { "=?UTF-8?B?" + Data($0).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
  }
}
