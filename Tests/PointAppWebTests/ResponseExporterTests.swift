import Foundation
import Hummingbird
import PointApp
import Synchronization
import Testing

@testable import PointAppWeb

/// The export is written as it is read, and stops with its client: a download abandoned after its
/// first page reads no more pages (the one read meanwhile aside), however many the survey has.
struct ResponseExporterTests {
  /// Records in memory, counting the pages asked for.
  final class CountedPages: RecordStorage {
    let records = InMemoryRecordStorage()
    let pages = Atomic(0)

    func read(_ name: String) async throws -> (data: Data, version: Int64)? { try await records.read(name) }
    func create(_ name: String, _ data: Data) async throws -> Bool { try await records.create(name, data) }
    func replace(_ name: String, _ data: Data, at version: Int64) async throws -> Bool { try await records.replace(name, data, at: version) }
    func delete(_ name: String, at version: Int64) async throws -> Bool { try await records.delete(name, at: version) }
    func names(after name: String?, limit: Int) async throws -> [String] { try await records.names(after: name, limit: limit) }
    /// Run once, before the first page is read.
    let beforeFirstPage = Mutex<(@Sendable () async throws -> Void)?>(nil)

    func records(prefixed prefix: String, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
      if pages.add(1, ordering: .relaxed).oldValue == 0, let hook = beforeFirstPage.withLock({ $0 }) { try await hook() }
      return try await records.records(prefixed: prefix, after: name, limit: limit)
    }
  }

  /// A client that takes the first `accepted` writes and is gone at the next.
  struct GoneClient: ResponseBodyWriter {
    struct Gone: Error {}
    let accepted: Int
    var writes = 0

    init(accepted: Int) { self.accepted = accepted }

    mutating func write(_ buffer: ByteBuffer) async throws {
      writes += 1
      guard writes <= accepted else { throw Gone() }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
  }

  /// A client that keeps every byte.
  struct KeepingClient: ResponseBodyWriter {
    final class Kept: Sendable { let bytes = Mutex(ByteBuffer()) }
    let kept = Kept()

    func write(_ buffer: ByteBuffer) async throws {
      var buffer = buffer
      kept.bytes.withLock { _ = $0.writeBuffer(&buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
  }

  /// Each page is made into text in two halves on two event loops: the file is every response
  /// once, in the order of their respondents, whatever the page's size and its halves (odd, one
  /// empty, a last page short).
  @Test(arguments: [1, 7, 100, 2_000])
  func everyPageIsWrittenWholeAndInOrder(pageSize: Int) async throws {
    let responses = ResponseStore(InMemoryRecordStorage())
    let survey = Survey(
      id: SurveyID("long"), title: "t", description: "d", category: .food, questions: [], reward: 10, estimatedMinutes: 1,
      publishedAt: Date(timeIntervalSince1970: 0), expiresAt: nil
    )
    var recorded: [SurveyResponse] = []
    for number in (0..<333).shuffled() {
      let response = SurveyResponse(
        surveyID: survey.id, version: 1, respondent: String(format: "r-%05d", number), outcome: number % 5 == 0 ? .screenedOut : .completed,
        answers: [], shownAt: nil, sentAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)), paid: 10
      )
      try await responses.record([response])
      recorded.append(response)
    }
    let exporter = ResponseExporter(responses: responses, versions: { _, _ in nil }, pageSize: pageSize)
    let table = ResponseTable(survey: survey, earlier: [])
    for export in [ResponseExport(format: .csv), ResponseExport(format: .jsonl, outcome: .completed)] {
      let client = KeepingClient()
      try await exporter.response(survey, export).body.write(client)
      let expected = recorded.sorted { $0.respondent < $1.respondent }.filter(export.includes)
      let lines = expected.map { export.format == .csv ? CSVFormat.line(table.row($0)) : ResponseExporter.jsonLine(table, $0) }
      #expect(String(buffer: client.kept.bytes.withLock { $0 }) == (export.format == .csv ? CSVFormat.header(table) : "") + lines.joined())
    }
  }

  @Test func aClientThatGoesAwayStopsTheExport() async throws {
    let storage = CountedPages()
    let responses = ResponseStore(storage)
    let survey = Survey(
      id: SurveyID("long"), title: "t", description: "d", category: .food, questions: [], reward: 10, estimatedMinutes: 1,
      publishedAt: Date(timeIntervalSince1970: 0), expiresAt: nil
    )
    for number in 0..<2_000 {
      let response = SurveyResponse(
        surveyID: survey.id, version: 1, respondent: String(format: "r-%05d", number), outcome: .completed, answers: [],
        shownAt: nil, sentAt: Date(timeIntervalSince1970: 1_800_000_000), paid: 10
      )
      try await responses.record([response])
    }
    let exporter = ResponseExporter(responses: responses, versions: { _, _ in nil }, pageSize: 100)
    // Read to the end by a client that stays: twenty full pages, and the empty one that ends them.
    try await exporter.response(survey, ResponseExport(format: .csv)).body.write(GoneClient(accepted: .max))
    #expect(storage.pages.load(ordering: .relaxed) == 21)
    storage.pages.store(0, ordering: .relaxed)

    // The header and the first page taken, then the client is gone.
    await #expect(throws: GoneClient.Gone.self) {
      try await exporter.response(survey, ResponseExport(format: .csv)).body.write(GoneClient(accepted: 2))
    }
    try await Task.sleep(for: .milliseconds(200))
    #expect(storage.pages.load(ordering: .relaxed) <= 3, "the page written, the one read meanwhile, and no more")
  }

  /// A response of a version the export's table was made without (recorded since, the first of its
  /// version) stops the file with a 503 rather than leave that version's answers out: asked again,
  /// the table has its columns and the file its answers. A version answered whose survey is not
  /// kept is read with the version now's columns, as before.
  @Test func aVersionAnsweredSinceTheTableWasMadeStopsTheFileUntilAskedAgain() async throws {
    let survey = ResponseExportTests.survey
    let (second, first) = (ResponseExportTests.responses[0], ResponseExportTests.responses[1])
    #expect(second.version == 2 && first.version == 1)
    let responses = ResponseStore(InMemoryRecordStorage())
    let kept: [Int: Survey] = [1: ResponseExportTests.first]
    let exporter = ResponseExporter(responses: responses, versions: { version, _ in kept[version] })
    try await responses.record([second])
    let made = try await exporter.table(of: survey)
    #expect(made.versions == [2])

    try await responses.record([first])
    let error = await #expect(throws: HTTPError.self) {
      _ = try await exporter.digest(survey, ResponseExport(format: .csv), table: made)
    }
    #expect(error?.status == .serviceUnavailable)

    let again = try await exporter.table(of: survey)
    #expect(again.versions == [1, 2])
    let client = KeepingClient()
    try await exporter.response(survey, ResponseExport(format: .csv)).body.write(client)
    let file = String(buffer: client.kept.bytes.withLock { $0 })
    #expect(file.contains("朝の飲み物は？"), "the first version's question has its column")
    #expect(file == CSVFormat.header(again) + [first, second].sorted { $0.respondent < $1.respondent }.map { CSVFormat.line(again.row($0)) }.joined())

    // A download whose first page is read just after its table was made, with a first answer to
    // the first version recorded between: cut short after its header.
    let storage = CountedPages()
    let racing = ResponseStore(storage)
    try await racing.record([second])
    storage.beforeFirstPage.withLock { $0 = { try await racing.record([first]) } }
    let cut = KeepingClient()
    await #expect(throws: HTTPError.self) {
      try await ResponseExporter(responses: racing, versions: { version, _ in kept[version] }).response(survey, ResponseExport(format: .csv)).body.write(cut)
    }
    #expect(String(buffer: cut.kept.bytes.withLock { $0 }) == CSVFormat.header(made))

    // The first version not kept: its response is read with the version now's columns.
    let unkept = ResponseExporter(responses: responses, versions: { _, _ in nil })
    let table = try await unkept.table(of: survey)
    #expect(table.versions == [2] && table.reads(1))
    #expect(try await unkept.digest(survey, ResponseExport(format: .csv), table: table).rows == 2)
  }
}
