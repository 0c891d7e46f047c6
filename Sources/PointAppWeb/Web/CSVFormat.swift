import PointApp

/// CSV as Excel in Japan opens it without a second thought: UTF-8 with a byte order mark, CRLF
/// line ends, RFC 4180 quoting (a field holding a comma, a quote or a line break is quoted, its
/// quotes doubled), numbers bare. A text cell a spreadsheet would run as a formula (one starting
/// with `=`, `+`, `-`, `@`, a tab or a carriage return) is neutralised as OWASP's CSV injection
/// page says: a `'` before it, so that it is shown as the text it is.
enum CSVFormat {
  static let byteOrderMark = "\u{FEFF}"

  /// The first lines of a file: the byte order mark, the columns' codes, their Japanese headings.
  static func header(_ table: ResponseTable) -> String {
    byteOrderMark + line(table.columns.map { .text($0.code) }) + line(table.columns.map { .text($0.heading) })
  }

  /// One row, with its CRLF.
  static func line(_ cells: [ResponseTable.Cell]) -> String {
    cells.map(field).joined(separator: ",") + "\r\n"
  }

  static func field(_ cell: ResponseTable.Cell) -> String {
    switch cell {
    case .empty: return ""
    case let .number(value): return String(value)
    case let .text(text):
      var text = text
      if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
      // A comma, a quote or a line break of any kind (as `Character.isNewline` has them), by its
      // scalars: the characters' grapheme breaking cost a tenth of an export.
      let quoted = text.unicodeScalars.contains {
        switch $0.value {
        case 0x2C, 0x22, 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
      }
      guard quoted else { return text }
      return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
  }
}
