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
    var line = ""
    append(cells, to: &line)
    return line
  }

  /// Appends one row, with its CRLF: each field written into `text` as it goes (no string per
  /// field, no array of them joined: a tenth of an export's time went to those).
  static func append(_ cells: [ResponseTable.Cell], to text: inout String) {
    for (index, cell) in cells.enumerated() {
      if index > 0 { text.unicodeScalars.append(",") }
      append(cell, to: &text)
    }
    text += "\r\n"
  }

  static func field(_ cell: ResponseTable.Cell) -> String {
    var field = ""
    append(cell, to: &field)
    return field
  }

  private static func append(_ cell: ResponseTable.Cell, to field: inout String) {
    switch cell {
    case .empty: return
    case let .number(value): field += String(value)
    case let .text(text):
      let neutralised = text.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false
      // A comma, a quote or a line break of any kind (as `Character.isNewline` has them), by its
      // scalars: the characters' grapheme breaking cost a tenth of an export.
      let quoted = text.unicodeScalars.contains {
        switch $0.value {
        case 0x2C, 0x22, 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
      }
      guard quoted else {
        if neutralised { field.unicodeScalars.append("'") }
        field += text
        return
      }
      field.unicodeScalars.append("\"")
      if neutralised { field.unicodeScalars.append("'") }
      field += text.replacingOccurrences(of: "\"", with: "\"\"")
      field.unicodeScalars.append("\"")
    }
  }
}
