import Hummingbird
import PointApp

/// A survey's responses as a file, written as they are read: a page of responses at a time (the
/// next read while one is written), so that memory stays the same for any number of rows, and a
/// client that goes away stops the work (its next write fails). CSV as `CSVFormat` writes it; JSON Lines, one object per response with
/// the same columns, by their codes.
struct ResponseExporter: Sendable {
  let responses: ResponseStore
  /// Responses read at a time.
  var pageSize = 500

  func response(_ survey: Survey, _ export: ResponseExport) -> Response {
    let table = ResponseTable(survey: survey)
    let csv = export.format == .csv
    let headers: HTTPFields = [
      .contentType: csv ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
      .contentDisposition: "attachment; filename=\"\(survey.id.rawValue)-responses.\(export.format.rawValue)\"",
      .cacheControl: "no-store",
    ]
    return Response(status: .ok, headers: headers, body: ResponseBody { [responses, pageSize] writer in
      if csv { try await writer.write(ByteBuffer(string: CSVFormat.header(table))) }
      var page = try await responses.responses(of: survey.id, after: nil, limit: pageSize)
      while true {
        // The next page is read while this one is written.
        let next: Task<[SurveyResponse], any Error>? =
          page.count == pageSize
          ? page.last.map { last in Task { try await responses.responses(of: survey.id, after: last.respondent, limit: pageSize) } } : nil
        do {
          var chunk = ""
          for response in page where export.includes(response) {
            chunk += csv ? CSVFormat.line(table.row(response)) : Self.jsonLine(table, response)
          }
          if !chunk.isEmpty { try await writer.write(ByteBuffer(string: chunk)) }
        } catch {
          next?.cancel()
          throw error
        }
        guard let next else { break }
        page = try await withTaskCancellationHandler { try await next.value } onCancel: { next.cancel() }
      }
      try await writer.finish(nil)
    })
  }

  /// One response as a JSON object on one line: the table's columns by code, in order; numbers as
  /// numbers, an empty cell as null.
  static func jsonLine(_ table: ResponseTable, _ response: SurveyResponse) -> String {
    var line = "{"
    for (index, (column, cell)) in zip(table.columns, table.row(response)).enumerated() {
      if index > 0 { line += "," }
      line += string(column.code) + ":"
      switch cell {
      case .empty: line += "null"
      case let .number(value): line += String(value)
      case let .text(text): line += string(text)
      }
    }
    return line + "}\n"
  }

  /// A JSON string: quotes, backslashes and control characters escaped; the rest as it is.
  static func string(_ text: String) -> String {
    var escaped = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped + "\""
  }
}
