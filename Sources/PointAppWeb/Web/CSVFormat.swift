import NIOCore
import PointApp

/// CSV as Excel in Japan opens it without a second thought: UTF-8 with a byte order mark, CRLF
/// line ends, RFC 4180 quoting (a field holding a comma, a quote or a line break is quoted, its
/// quotes doubled), numbers bare. A text cell a spreadsheet would run as a formula (one starting
/// with `=`, `+`, `-`, `@`, a tab or a carriage return) is neutralised as OWASP's CSV injection
/// page says: a `'` before it, so that it is shown as the text it is.
///
/// Written as bytes, straight into the buffer sent (an export's lines appended to a `String` took
/// about a quarter of its time, and were copied once more into a buffer to be sent).
enum CSVFormat {
  static let byteOrderMark = "\u{FEFF}"

  /// The first lines of a file: the byte order mark, the columns' codes, their Japanese headings.
  static func header(_ table: ResponseTable) -> String {
    byteOrderMark + line(table.columns.map { .text($0.code) }) + line(table.columns.map { .text($0.heading) })
  }

  /// One row, with its CRLF.
  static func line(_ cells: [ResponseTable.Cell]) -> String {
    var buffer = ByteBuffer()
    append(cells, to: &buffer)
    return String(buffer: buffer)
  }

  /// Appends one row, with its CRLF.
  static func append(_ cells: [ResponseTable.Cell], to buffer: inout ByteBuffer) {
    for (index, cell) in cells.enumerated() {
      if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
      append(cell, to: &buffer)
    }
    buffer.writeInteger(UInt16(0x0D0A))  // CR LF, big-endian as written
  }

  static func field(_ cell: ResponseTable.Cell) -> String {
    var buffer = ByteBuffer()
    append(cell, to: &buffer)
    return String(buffer: buffer)
  }

  private static func append(_ cell: ResponseTable.Cell, to buffer: inout ByteBuffer) {
    switch cell {
    case .empty: return
    case let .number(value): buffer.writeString(String(value))
    case let .text(text):
      if let done = text.utf8.withContiguousStorageIfAvailable({ append(utf8: $0, to: &buffer) }) { return done }
      Array(text.utf8).withUnsafeBufferPointer { append(utf8: $0, to: &buffer) }
    }
  }

  /// A text field from its UTF-8: neutralised and quoted as the rules above say.
  private static func append(utf8 text: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
    let neutralised =
      switch text.first {
      case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
      default: false
      }
    // A comma, a quote or a line break of any kind (as `Character.isNewline` has them: LF, VT,
    // FF, CR, and NEL, LS, PS, whose UTF-8 is C2 85, E2 80 A8 and E2 80 A9).
    var quoted = false
    var index = 0
    while index < text.count, !quoted {
      switch text[index] {
      case 0x2C, 0x22, 0x0A...0x0D: quoted = true
      case 0xC2: quoted = index + 1 < text.count && text[index + 1] == 0x85
      case 0xE2: quoted = index + 2 < text.count && text[index + 1] == 0x80 && (text[index + 2] == 0xA8 || text[index + 2] == 0xA9)
      default: break
      }
      index += 1
    }
    if quoted { buffer.writeInteger(UInt8(ascii: "\"")) }
    if neutralised { buffer.writeInteger(UInt8(ascii: "'")) }
    guard quoted else {
      buffer.writeBytes(text)
      return
    }
    // Each quote doubled: the runs between them written whole.
    var start = 0
    for (at, byte) in text.enumerated() where byte == UInt8(ascii: "\"") {
      buffer.writeBytes(UnsafeBufferPointer(rebasing: text[start...at]))
      buffer.writeInteger(UInt8(ascii: "\""))
      start = at + 1
    }
    buffer.writeBytes(UnsafeBufferPointer(rebasing: text[start...]))
    buffer.writeInteger(UInt8(ascii: "\""))
  }
}
