import Mustache

/// The escaping of `{{name}}` in our templates: `<`, `>`, `&`, `"` and `'` as entities, like
/// swift-mustache's own, but byte by byte over UTF-8. The library's goes character by character,
/// which for Japanese text means grapheme breaking and a dictionary lookup per character: a third
/// of the time of a page with many questions. Templates opt in with `{{% CONTENT_TYPE: HTML}}`
/// (registered under the library's name, so a template without the pragma is escaped the same,
/// only slower).
struct HTMLEscaping: MustacheContentType {
  func escapeText(_ text: String) -> String {
    Self.escape(text)
  }

  static func escape(_ text: String) -> String {
    var text = text
    return text.withUTF8 { bytes in
      guard bytes.contains(where: isSpecial) else { return String(decoding: bytes, as: UTF8.self) }
      var escaped: [UInt8] = []
      escaped.reserveCapacity(bytes.count + 16)
      for byte in bytes {
        switch byte {
        case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
        case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
        default: escaped.append(byte)
        }
      }
      return String(decoding: escaped, as: UTF8.self)
    }
  }

  private static func isSpecial(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
      || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
  }
}

/// A string renders as itself. swift-mustache renders a value that is not
/// `MustacheCustomRenderable` through `String(describing:)`, after a series of dynamic casts that
/// fail for every string of every page (a tenth of the survey page's render time).
extension String: @retroactive MustacheCustomRenderable {
  public var renderText: String { self }
  public var isNull: Bool { false }
}
