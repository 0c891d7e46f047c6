import Foundation
import Crypto
import Hummingbird
import NIOPosix
import PointApp

/// A survey's responses as a file, written as they are read: a page of responses at a time (the
/// next read while one is written), so that memory stays the same for any number of rows, and a
/// client that goes away stops the work (its next write fails). CSV as `CSVFormat` writes it; JSON Lines, one object per response with
/// the same columns, by their codes.
public struct ResponseExporter: Sendable {
  let responses: ResponseStore
  /// Where the survey's earlier versions are kept: each one answered has its columns.
  let versions: @Sendable (_ version: Int, _ survey: SurveyID) async throws -> Survey?
  /// Responses read at a time.
  var pageSize = 2000

  /// The file's name: the survey, the format and the cut (`breakfast-responses-20261127-120000.csv`).
  static func fileName(_ survey: Survey, _ export: ResponseExport) -> String {
    "\(survey.id.rawValue)-responses\(export.cut.map { "-" + ResponseExport.cutText($0) } ?? "").\(export.format.rawValue)"
  }

  func response(_ survey: Survey, _ export: ResponseExport) -> Response {
    let headers: HTTPFields = [
      .contentType: export.format == .csv ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
      .contentDisposition: "attachment; filename=\"\(Self.fileName(survey, export))\"",
      .cacheControl: "no-store",
    ]
    return Response(status: .ok, headers: headers, body: ResponseBody { writer in
      let table = try await table(of: survey)
      _ = try await write(survey, export, table: table) { try await writer.write($0) }
      try await writer.finish(nil)
    })
  }

  /// The table of `survey` with the columns of every earlier version some response answered.
  func table(of survey: Survey) async throws -> ResponseTable {
    let answered = try await responses.counts(of: survey.id).versionsAnswered(upTo: survey.version)
    var earlier: [Survey] = [], unkept: Set<Int> = []
    for version in answered where version != survey.version {
      if let kept = try await versions(version, survey.id) { earlier.append(kept) } else { unkept.insert(version) }
    }
    return ResponseTable(survey: survey, earlier: earlier, unkept: unkept)
  }

  /// Met while writing: a response of a version the table was not made for, the first of its
  /// version, recorded since the table was made (or, on files, in another process up to a
  /// quarter of a second before it, whose counts are read that late). A file under way cannot
  /// take its columns, so it stops (a download is cut short, a page answers 503) rather than
  /// leave its answers out. Asked again, the table has them.
  static let answeredSinceTheTable = HTTPError(
    .serviceUnavailable, headers: [.retryAfter: "1"], message: "a response of a version the export's table was not made for"
  )

  /// What the manifest beside a download says of its file: the rows, the file's SHA-256, the
  /// versions it has columns for.
  struct Digest: Equatable, Sendable {
    let rows: Int
    let sha256: String
    let versions: [Int]
  }

  /// The file `response` sends, made again with `table` (`table(of:)`) and digested (not kept).
  func digest(_ survey: Survey, _ export: ResponseExport, table: ResponseTable) async throws -> Digest {
    var hash = SHA256()
    let rows = try await write(survey, export, table: table) { buffer in hash.update(data: buffer.readableBytesView) }
    return Digest(rows: rows, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined(), versions: table.versions)
  }

  /// Writes the file a page of responses at a time through `send` (the next page read while one
  /// is written); the number of responses written.
  private func write(
    _ survey: Survey, _ export: ResponseExport, table: ResponseTable, to send: @concurrent (ByteBuffer) async throws -> Void
  ) async throws -> Int {
    let csv = export.format == .csv
    if csv { try await send(ByteBuffer(string: CSVFormat.header(table))) }
    var rows = 0
    var page = try await responses.stored(of: survey.id, after: nil, limit: pageSize)
    while true {
      let next: Task<[(name: String, data: Data)], any Error>? =
        page.count == pageSize
        ? page.last.map { [responses, pageSize] last in Task { try await responses.stored(of: survey.id, after: last.name, limit: pageSize) } } : nil
      do {
        // The page's two halves read and made into text at once on NIO's thread pool (a thread a
        // core, scheduled beside the event loops, which stay free for other requests and for the
        // next page's query meanwhile; a task this one started would stay on its loop), then
        // sent in order.
        let current = page, half = page.count / 2
        async let first = NIOThreadPool.singleton.runIfActive { try Self.lines(current[..<half], export, table) }
        async let second = NIOThreadPool.singleton.runIfActive { try Self.lines(current[half...], export, table) }
        for (bytes, count) in try await [first, second] where count > 0 {
          try await send(bytes)
          rows += count
        }
      } catch {
        next?.cancel()
        throw error
      }
      guard let next else { break }
      page = try await withTaskCancellationHandler { try await next.value } onCancel: { next.cancel() }
    }
    return rows
  }

  /// The lines of the stored responses the export includes, and how many (public for
  /// `pointapp-bench micro`, which measures it).
  public static func lines(_ stored: ArraySlice<(name: String, data: Data)>, _ export: ResponseExport, _ table: ResponseTable) throws -> (ByteBuffer, Int) {
    var bytes = ByteBuffer()
    var count = 0
    for record in stored {
      let response = try ResponseStore.response(from: record.data)
      guard export.includes(response) else { continue }
      guard table.reads(response.version) else { throw answeredSinceTheTable }
      if export.format == .csv { CSVFormat.append(table.row(response), to: &bytes) } else { bytes.writeString(jsonLine(table, response)) }
      count += 1
    }
    return (bytes, count)
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

/// The manifest beside a download: which survey and versions, which filters and cut, how many
/// rows, and the SHA-256 of the file; the same filters and cut give the same file and manifest.
struct ExportManifest: Encodable, Equatable {
  struct Filters: Encodable, Equatable {
    /// An outcome's name; `nil`: every outcome.
    let outcome: String?
    /// Days in Tokyo; `nil`: open.
    let from: String?
    let to: String?
  }

  let survey: String
  let title: String
  let format: String
  let file: String
  /// The versions the file has columns for; the version now is the last.
  let versions: [Int]
  let filters: Filters
  /// Tokyo time: responses sent after it are not in the file.
  let cut: String
  let rows: Int
  let sha256: String

  init(survey: Survey, export: ResponseExport, digest: ResponseExporter.Digest) {
    self.survey = survey.id.rawValue
    title = survey.title
    format = export.format.rawValue
    file = ResponseExporter.fileName(survey, export)
    versions = digest.versions
    filters = Filters(outcome: export.outcome?.rawValue, from: export.from?.iso, to: export.through?.iso)
    cut = export.cut.map { ResponseTable.format($0) + "+09:00" } ?? ""
    rows = digest.rows
    sha256 = digest.sha256
  }

  /// Pretty, keys sorted, with a final newline.
  var data: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return Array((try? encoder.encode(self)) ?? Data()) + [UInt8(ascii: "\n")]
  }
}
