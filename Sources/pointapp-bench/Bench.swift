import ArgumentParser
import Composable
import Dependencies
import Foundation
import Logging
import NIOCore
import NIOPosix
import PointApp
import PointAppWeb

/// In-process measurements for `Scripts/benchmark.py`: the reducer and page rendering, the raw
/// durable-write loop the server is compared with, and seeding a user with a long history.
@main
struct Bench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pointapp-bench",
    abstract: "PointApp's in-process benchmarks; Scripts/benchmark.py runs them with the load tests.",
    subcommands: [Micro.self, RawWrites.self, SeedUser.self, SeedMembers.self, Churn.self, FixedPage.self]
  )

  /// The fixed page runs its tasks on NIO's event loops, as `pointapp` does (installed before any
  /// task starts); the in-process measurements keep the default executor they were taken with.
  static func main() async {
    if CommandLine.arguments.dropFirst().first == FixedPage.configuration.commandName {
      NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
    await main(nil)
  }
}

/// Reducer actions per second and pages per second, on a user who has answered ten surveys.
struct Micro: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Reducer actions/s and pages/s.")

  @Option(help: "Seconds per measurement.") var seconds = 2.0
  @Option(help: "Templates folder.") var templates = "Templates"

  func run() async throws {
    let catalog = Catalog.shipped(seededAt: Date()).filter { $0.isAvailable(at: Date()) }
    try await withDependencies {
      $0.date = .constant(Date())
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.surveyClient = .catalog(catalog)
    } operation: {
      var state = AppFeature.State()
      let feature = PreparedReducer(AppFeature())  // as the server runs it: its body built once
      for survey in catalog.prefix(10) {
        _ = feature.reduce(into: &state, action: .surveyOpened(survey.id))
        _ = feature.reduce(into: &state, action: .surveyDetail(.surveyLoaded(.success(survey))))
        _ = feature.reduce(into: &state, action: .surveyDetail(.submitButtonTapped(validDraft(for: survey))))
      }
      _ = feature.reduce(into: &state, action: .surveyList(.surveysLoaded(.success(catalog))))
      _ = feature.reduce(into: &state, action: .surveyOpened(catalog[11].id))
      _ = feature.reduce(into: &state, action: .surveyDetail(.surveyLoaded(.success(catalog[11]))))
      let actions: [AppFeature.Action] = [
        .missions(.pageRequested), .history(.pageRequested(1)), .dashboard(.pageRequested),
        .surveyDetail(.submitButtonTapped([:])), .surveyList(.surveysLoaded(.success(catalog))),
      ]
      let reduced = measure(seconds) { iteration in
        var copy = state
        _ = feature.reduce(into: &copy, action: actions[iteration % actions.count])
      }
      report("reducer: AppFeature (5 kinds of action)", reduced, unit: "actions/s")

      let stored = await measureAsync(seconds) {
        let store = Store(initialState: state, reducer: feature)
        await store.send(.surveyList(.pageRequested(category: nil, sort: .newest)))
      }
      report("store: send with its catalog effect, to completion", stored, unit: "sends/s")

      let encoded = measure(seconds) { _ in _ = SavedState.data(for: state) }
      report("saved state: encode (10 answers)", encoded, unit: "encodes/s")
      // An answer's response, as every answer writes it, and as `JSONEncoder` writes the same bytes.
      let response = SurveyResponse(
        surveyID: catalog[11].id, version: 1, respondent: "r-0123456789abcdef", outcome: .completed,
        answers: [
          SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("daily"))),
          SurveyAnswer(questionID: QuestionID("q2"), value: .choices([ChoiceID("rice"), ChoiceID("bread")])),
          SurveyAnswer(questionID: QuestionID("q3"), value: .rating(4)), SurveyAnswer(questionID: QuestionID("q4"), value: .text("朝は和食です")),
        ],
        shownAt: .now - 120, sentAt: .now, paid: catalog[11].reward, ageBand: 30, gender: .female, prefecture: .tokyo
      )
      let written = measure(seconds) { _ in _ = try? SavedJSON.encode(response) }
      report("response: encode (SavedJSONWriter)", written, unit: "encodes/s")
      let byCodable = measure(seconds) { _ in _ = try? SavedJSON.encodeByCodable(response) }
      report("response: encode (JSONEncoder, the same bytes)", byCodable, unit: "encodes/s")

      // An answer's commit as the file store's log keeps it: the user's state, the response and
      // its survey's counts, as they are written.
      let commit = [
        FileBackend.Intended(folder: "users", name: "u-0123456789abcdef", base: 11, version: 12, data: SavedState.data(for: state)),
        FileBackend.Intended(folder: "responses", name: "\(catalog[11].id.rawValue)~r-0123456789abcdef", base: nil, version: 1, data: try SavedJSON.encode(response)),
        FileBackend.Intended(folder: "responses", name: "#counts~\(catalog[11].id.rawValue)", base: 40, version: 41, data: Data(repeating: UInt8(ascii: "1"), count: 600)),
      ]
      let packed = measure(seconds) { _ in _ = FileBackend.Intended.body(commit) }
      report("commit log: an answer's commit (packed)", packed, unit: "commits/s")
      let asJSON = measure(seconds) { _ in _ = try? JSONEncoder().encode(commit) }
      report("commit log: an answer's commit (JSONEncoder, as before)", asJSON, unit: "commits/s")

      // The export's work for each stored response (read, filtered, its CSV line written), on
      // food-001 as E1 exports it: a choice, three picks of six, a rating.
      let food = Catalog.shipped(seededAt: Date()).first { $0.id == SurveyID("food-001") }!
      let table = ResponseTable(survey: food)
      let storedResponses = try (0..<2000).map { n in
        let respondent = "r-" + String(format: "%016x", n)
        let answers = SurveyResponse(
          surveyID: food.id, version: food.version, respondent: respondent, outcome: .completed,
          answers: [
            SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("q1-2"))),
            SurveyAnswer(questionID: QuestionID("q2"), value: .choices([ChoiceID("q2-1"), ChoiceID("q2-2"), ChoiceID("q2-5")])),
            SurveyAnswer(questionID: QuestionID("q3"), value: .rating(4)),
          ],
          shownAt: .now - 120, sentAt: .now, paid: food.reward, ageBand: 30, gender: .female, prefecture: .tokyo
        )
        return (name: "\(food.id.rawValue)~\(respondent)", data: try SavedJSON.encode(answers))
      }
      let export = ResponseExport(format: .csv).cut(at: .now + 60)
      let exported = measure(seconds) { _ in _ = try? ResponseExporter.lines(storedResponses[...], export, table) } * Double(storedResponses.count)
      report("export: a stored response read and written as its CSV line", exported, unit: "rows/s")

      let renderer = try await PageRenderer(directory: URL(fileURLWithPath: templates))
      let list = measure(seconds) { _ in _ = renderer.render("surveys", Pages.surveys(state, fragments: renderer)) }
      report("render: survey list (\(state.surveyListPage.surveys.count) rows)", list, unit: "pages/s")
      // As a view gets it (`surveysPage`): a list already kept, filled in with the member's own;
      // lists each new to the renderer (more of them than it keeps: rendered whole, noted); and
      // each list seen twice (the second view cuts it).
      let kept = measure(seconds) { _ in _ = renderer.surveysPage(state) }
      report("render: survey list, kept (a member's view)", kept, unit: "pages/s")
      let surveys = state.surveyListPage.surveys
      let lists = surveys.indices.flatMap { index in
        [false, true].flatMap { needsProfile in
          [1, 2].map { count in
            var each = state
            each.surveyListPage.newSurveys = Set((0..<count).map { surveys[(index + $0) % surveys.count].id })
            each.surveyListPage.surveysNeedProfile = needsProfile
            return each
          }
        }
      }
      let notKept = measure(seconds) { index in _ = renderer.surveysPage(lists[index % lists.count]) }
      report("render: survey list, each list new (\(lists.count) lists in turn)", notKept, unit: "pages/s")
      let twice = measure(seconds) { index in _ = renderer.surveysPage(lists[index / 2 % lists.count]) }
      report("render: survey list, each list seen twice in a row (\(lists.count) lists)", twice, unit: "pages/s")
      let detail = measure(seconds) { _ in _ = renderer.render("survey", Pages.survey(state, survey: catalog[11], csrf: "token", fragments: renderer)) }
      report("render: survey detail with its form (its questions kept)", detail, unit: "pages/s")
      var answering = state
      answering.surveyDetailPage?.draft = validDraft(for: catalog[11])
      let drafted = measure(seconds) { _ in _ = renderer.render("survey", Pages.survey(answering, survey: catalog[11], csrf: "token", fragments: renderer)) }
      report("render: survey detail with its form, answers filled in (rendered whole)", drafted, unit: "pages/s")
      let points = measure(seconds) { _ in _ = renderer.render("points", Pages.points(state, fragments: renderer)) }
      report("render: points", points, unit: "pages/s")
    }
  }
}

/// The durable write the server does, alone: temp file, fsync, rename, folder fsync.
struct RawWrites: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Writes per second of the raw durable-write loop.")

  @Option(help: "Folder to write in (the server's users folder).") var folder: String
  @Option(help: "Bytes per write.") var bytes: Int
  @Option(help: "Seconds to run.") var seconds = 5.0

  func run() throws {
    let data = Data(repeating: UInt8(ascii: "x"), count: bytes)
    let path = URL(fileURLWithPath: folder).appendingPathComponent("raw-benchmark.json").path
    defer { unlink(path) }
    var failure: (any Error)?
    let rate = measure(seconds) { _ in
      do { try DurableFile.write(data, to: path) } catch { failure = error }
    }
    if let failure { throw failure }
    print(String(format: "%.1f", rate))
  }
}

/// For the crash test: holdings on the file backend, each writing one counter into three tables
/// (an intent, then three records), one after another until the process is killed; each count
/// printed once its holding returned. `--check` opens the folder (finishing a commit a kill
/// interrupted) and prints the three counters.
struct Churn: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Commit counters in three tables until killed (the crash test).")

  @Option(help: "The data folder.") var data: String
  @Flag(help: "Print the three counters and stop.") var check = false

  static let names: [(RecordKind, String)] = [(.sessions, "churn-a"), (.accounts, "churn-b"), (.catalog, "churn-c")]

  func run() async throws {
    let backend = try FileBackend(URL(fileURLWithPath: data))
    let tables = Self.names.map { (backend.table($0.0), $0.1) }
    @Sendable func counters() async throws -> [(count: Int, version: Int64)?] {
      try await tables.asyncMap { table, name in
        try await table.read(name).map { (try JSONDecoder().decode([String: Int].self, from: $0.data)["n"] ?? -1, $0.version) }
      }
    }
    guard !check else {
      print(try await counters().map { $0.map { String($0.count) } ?? "none" }.joined(separator: " "))
      return
    }
    while true {
      let count = try await backend.holding("churn") {
        let read = try await counters()
        let counts = Set(read.map { $0?.count ?? 0 })
        guard counts.count == 1, let count = counts.first else { throw ValidationError("counters apart: \(read)") }
        for ((table, name), current) in zip(tables, read) {
          let next = Data(#"{"n":\#(count + 1)}"#.utf8)
          let written = if let current { try await table.replace(name, next, at: current.version) } else { try await table.create(name, next) }
          guard written else { throw ValidationError("\(name) moved inside the holding") }
        }
        return count + 1
      }
      // Written at once, whole: what the crash test reads is what was acknowledged.
      FileHandle.standardOutput.write(Data("\(count)\n".utf8))
    }
  }
}

extension Array where Element: Sendable {
  fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}

/// Saves a user whose ledger holds `entries` movements, as the server would (its history archived),
/// and a session of theirs; prints the user's id, then the session cookie's value.
struct SeedUser: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Create a user with a long history.")

  @Option(help: "The server's data folder.") var data: String?
  @Option(help: "The server's database instead of a data folder.") var databaseURL: String?
  @Option(help: "Ledger entries.") var entries = 10_000

  func run() async throws {
    var progress = UserProgress()
    let start = Date().addingTimeInterval(-Double(entries) * 600)
    for number in 0..<entries {
      let date = start.addingTimeInterval(Double(number) * 600)
      let survey = Survey(
        id: SurveyID("history-\(number)"), title: "", description: "", category: .food, questions: [],
        reward: 10, estimatedMinutes: 1, publishedAt: date, expiresAt: nil
      )
      progress.recordAnswer(
        to: survey, with: [], id: TransactionID(UUID()), at: date, on: Day(date, in: .tokyo), bonusID: { TransactionID(UUID()) }
      )
    }
    var state = AppFeature.State()
    state.progress = progress
    let id = UserID.random()
    // The user, then a session of theirs as the server would have issued it: its cookie's value.
    if let databaseURL {
      let database = try Database(url: databaseURL, logger: Logger(label: "pointapp-bench"))
      try await Schema.migrate(database)
      try await UserStates(PostgresBackend(database)).replace(id, with: state)
      print(id)
      let backend = PostgresBackend(database)
      print(try await Self.startSession(of: id, secret: try await Sessions.secret(in: backend), in: backend.table(.sessions)))
      await database.close()
    } else if let data {
      let folder = URL(fileURLWithPath: data)
      let backend = try FileBackend(folder)
      try await UserStates(backend).replace(id, with: state)
      print(id)
      print(try await Self.startSession(of: id, secret: try await Sessions.secret(in: backend), in: backend.table(.sessions)))
    } else {
      throw ValidationError("--data or --database-url is needed")
    }
  }

  static func startSession(of user: UserID, secret: Data, in storage: any RecordStorage) async throws -> String {
    let sessions = Sessions(secret: secret, secureCookies: false, store: SessionRecords(storage), accounts: AccountRecords(InMemoryRecordStorage()))
    return try await sessions.startGuest(user, now: Date())
  }
}

/// Members as registration and verification leave them, many at once (no bcrypt: their password
/// is never typed): an account each with its address verified, and a saved state.
struct SeedMembers: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Create many verified members (the invitations benchmark).")

  @Option(help: "The server's data folder.") var data: String
  @Option(help: "Members.") var count = 100_000

  func run() async throws {
    let backend = try FileBackend(URL(fileURLWithPath: data))
    let accounts = AccountRecords(backend.table(.accounts))
    let users = UserStates(backend)
    let now = Date()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for lane in 0..<8 {
        group.addTask {
          for number in stride(from: lane, to: count, by: 8) {
            let user = UserID.random()
            var account = Account(email: "member-\(number)@example.jp", passwordHash: "-", user: user, created: now)
            account.verifiedAt = now
            _ = try await accounts.create(account, as: account.id)
            try await users.replace(user, with: AppFeature.State())
          }
        }
      }
      try await group.waitForAll()
    }
    print(count)
  }
}

/// A valid answer to every question of a survey.
func validDraft(for survey: Survey) -> AnswerDraft {
  var draft: AnswerDraft = [:]
  for question in survey.questions {
    switch question.kind {
    case let .singleChoice(choices): draft[question.id] = [choices[0].id.rawValue]
    case let .multipleChoice(choices, minPicks, _): draft[question.id] = choices.prefix(max(1, minPicks)).map(\.id.rawValue)
    case .freeText: draft[question.id] = ["はい"]
    case .rating: draft[question.id] = ["3"]
    case let .grid(rows, scale):
      draft[question.id] = rows.enumerated().map { SurveyQuestion.gridInput(row: $1.id, choice: scale[$0 % scale.count].id.rawValue) }
    case let .number(min, _, _): draft[question.id] = [String(min)]
    case let .longText(minLength, _): draft[question.id] = [String(repeating: "は", count: max(1, minLength))]
    case let .attentionCheck(_, expected): draft[question.id] = [expected.rawValue]
    }
  }
  return draft
}

/// Runs `body` repeatedly for about `seconds` and returns runs per second.
func measure(_ seconds: Double, _ body: (Int) -> Void) -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  var iterations = 0
  while true {
    for _ in 0..<64 { body(iterations); iterations += 1 }
    let elapsed = clock.now - start
    if elapsed >= .seconds(seconds) { return Double(iterations) / elapsed.seconds }
  }
}

func measureAsync(_ seconds: Double, _ body: () async -> Void) async -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  var iterations = 0
  while true {
    await body()
    iterations += 1
    let elapsed = clock.now - start
    if elapsed >= .seconds(seconds) { return Double(iterations) / elapsed.seconds }
  }
}

func report(_ name: String, _ rate: Double, unit: String) {
  print("micro: \(name): \(String(format: "%.0f", rate)) \(unit) (\(String(format: "%.2f", 1_000_000 / rate)) µs each)")
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
