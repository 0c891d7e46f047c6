import Foundation
import PointApp
import SnapshotTesting
import Testing

@testable import PointAppWeb

/// The export's CSV: its layout pinned byte for byte for a survey with every kind of question, and
/// the same file opened by a real spreadsheet (LibreOffice, headless) and read back cell by cell.
struct ResponseExportTests {
  /// A screening, then every kind of question; its second version: the first had a question on
  /// drinks that it removed, and had no fruit among the foods (added, and the foods shuffled).
  static let survey = Survey(
    id: SurveyID("breakfast"), title: "朝ごはん調査", description: "毎朝の食事", category: .food,
    questions: [
      SurveyQuestion(id: QuestionID("often"), text: "朝ごはんを食べる頻度は？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("daily"), label: "ほぼ毎日"), .init(id: ChoiceID("rarely"), label: "ほとんどない"),
      ])),
      SurveyQuestion(id: QuestionID("foods"), text: "よく食べるものは？", kind: .multipleChoice(choices: [
        .init(id: ChoiceID("rice"), label: "ごはん"), .init(id: ChoiceID("bread"), label: "パン"), .init(id: ChoiceID("fruit"), label: "果物"),
      ], minPicks: 0, maxPicks: 2), shufflesChoices: true),
      SurveyQuestion(id: QuestionID("taste"), text: "満足度は？", kind: .grid(
        rows: [.init(id: "taste", label: "味"), .init(id: "price", label: "値段", isOptional: true)],
        scale: [.init(id: ChoiceID("good"), label: "満足"), .init(id: ChoiceID("bad"), label: "不満")]
      )),
      SurveyQuestion(id: QuestionID("minutes"), text: "かける時間", kind: .number(min: -10, max: 120, unit: "分")),
      SurveyQuestion(id: QuestionID("rating"), text: "総合評価", kind: .rating),
      SurveyQuestion(id: QuestionID("note"), text: "ひとこと", kind: .freeText(required: false, maxLength: 200)),
      SurveyQuestion(id: QuestionID("ideal"), text: "理想の朝ごはん", kind: .longText(minLength: 1, maxLength: 400)),
      SurveyQuestion(id: QuestionID("check"), text: "「いいえ」を選んでください", kind: .attentionCheck(choices: [
        .init(id: ChoiceID("yes"), label: "はい"), .init(id: ChoiceID("no"), label: "いいえ"),
      ], expected: ChoiceID("no"))),
    ],
    reward: 40, estimatedMinutes: 3, publishedAt: noon - 86_400, expiresAt: nil,
    screening: Screening(
      questions: [SurveyQuestion(id: QuestionID("eats"), text: "朝ごはんを食べますか？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("y"), label: "食べる"), .init(id: ChoiceID("n"), label: "食べない"),
      ]))],
      qualifying: [QuestionID("eats"): [ChoiceID("y")]], consolation: 2
    ),
    version: 2,
    cells: QuotaCells(dimensions: [.gender], cells: [.init(values: ["female"], limit: 10), .init(values: ["male"], limit: 10)])
  )

  /// The first version: a question on drinks, and no fruit.
  static let first = Survey(
    id: survey.id, title: survey.title, description: survey.description, category: .food,
    questions: [
      survey.questions[0],
      SurveyQuestion(id: QuestionID("drink"), text: "朝の飲み物は？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("coffee"), label: "コーヒー"), .init(id: ChoiceID("tea"), label: "お茶"),
      ])),
      SurveyQuestion(id: QuestionID("foods"), text: "よく食べるものは？", kind: .multipleChoice(choices: [
        .init(id: ChoiceID("rice"), label: "ごはん"), .init(id: ChoiceID("bread"), label: "パン"),
      ], minPicks: 0, maxPicks: 2)),
    ] + survey.questions[2...],
    reward: 40, estimatedMinutes: 3, publishedAt: noon - 86_400 * 2, expiresAt: nil, screening: survey.screening
  )

  /// A free text that holds everything a CSV must survive.
  static let trickyText = "おいしい, \"とても\"\nまた食べたい =HYPERLINK(\"http://evil.example\",\"クリック\")"

  /// A free text a spreadsheet would run.
  static let formula = "=HYPERLINK(\"http://evil.example\",\"クリック\")"

  static let responses: [SurveyResponse] = [
    SurveyResponse(
      surveyID: survey.id, version: 2, respondent: "r-1f2e3d4c5b6a", outcome: .completed,
      answers: [
        SurveyAnswer(questionID: QuestionID("often"), value: .choice(ChoiceID("daily"))),
        SurveyAnswer(questionID: QuestionID("foods"), value: .choices([ChoiceID("rice"), ChoiceID("fruit")])),
        SurveyAnswer(questionID: QuestionID("taste"), value: .grid([GridCell(row: "taste", choice: ChoiceID("good"))])),
        SurveyAnswer(questionID: QuestionID("minutes"), value: .number(-5)),
        SurveyAnswer(questionID: QuestionID("rating"), value: .rating(4)),
        SurveyAnswer(questionID: QuestionID("note"), value: .text(trickyText)),
        SurveyAnswer(questionID: QuestionID("ideal"), value: .text(formula)),
        SurveyAnswer(questionID: QuestionID("check"), value: .choice(ChoiceID("no"))),
      ],
      screening: [SurveyAnswer(questionID: QuestionID("eats"), value: .choice(ChoiceID("y")))],
      shownAt: noon, sentAt: noon + 95, paid: 40, ageBand: 30, gender: .female, prefecture: .tokyo,
      order: ShownOrder(questions: nil, choices: [QuestionID("foods"): [ChoiceID("fruit"), ChoiceID("rice"), ChoiceID("bread")]]),
      cell: "female"
    ),
    // Answered the first version: its drink kept, the fruit it was never offered blank.
    SurveyResponse(
      surveyID: survey.id, version: 1, respondent: "r-5e5e5e5e5e5e", outcome: .completed,
      answers: [
        SurveyAnswer(questionID: QuestionID("often"), value: .choice(ChoiceID("daily"))),
        SurveyAnswer(questionID: QuestionID("drink"), value: .choice(ChoiceID("tea"))),
        SurveyAnswer(questionID: QuestionID("foods"), value: .choices([ChoiceID("bread")])),
        SurveyAnswer(questionID: QuestionID("taste"), value: .grid([GridCell(row: "taste", choice: ChoiceID("good"))])),
        SurveyAnswer(questionID: QuestionID("minutes"), value: .number(10)),
        SurveyAnswer(questionID: QuestionID("rating"), value: .rating(5)),
        SurveyAnswer(questionID: QuestionID("ideal"), value: .text("和食")),
        SurveyAnswer(questionID: QuestionID("check"), value: .choice(ChoiceID("no"))),
      ],
      screening: [SurveyAnswer(questionID: QuestionID("eats"), value: .choice(ChoiceID("y")))],
      shownAt: noon - 86_000, sentAt: noon - 85_900, paid: 40
    ),
    SurveyResponse(
      surveyID: survey.id, version: 1, respondent: "r-99aa88bb77cc", outcome: .screenedOut, answers: [],
      screening: [SurveyAnswer(questionID: QuestionID("eats"), value: .choice(ChoiceID("n")))],
      shownAt: nil, sentAt: noon + 3_600, paid: 2,
      // An order made for a question never shown (screened out): not told.
      order: ShownOrder(questions: nil, choices: [QuestionID("foods"): [ChoiceID("bread"), ChoiceID("rice"), ChoiceID("fruit")]])
    ),
    SurveyResponse(
      surveyID: survey.id, version: 2, respondent: "r-0123456789ab", outcome: .invalid,
      answers: [
        SurveyAnswer(questionID: QuestionID("often"), value: .choice(ChoiceID("rarely"))),
        SurveyAnswer(questionID: QuestionID("taste"), value: .grid([
          GridCell(row: "taste", choice: ChoiceID("bad")), GridCell(row: "price", choice: ChoiceID("bad")),
        ])),
        SurveyAnswer(questionID: QuestionID("minutes"), value: .number(0)),
        SurveyAnswer(questionID: QuestionID("rating"), value: .rating(1)),
        SurveyAnswer(questionID: QuestionID("ideal"), value: .text("+81 90 0000 0000")),
        SurveyAnswer(questionID: QuestionID("check"), value: .choice(ChoiceID("yes"))),
      ],
      shownAt: noon + 7_200, sentAt: noon + 7_203, flags: [.speeding, .attention], paid: 0, ageBand: 20, gender: .male,
      prefecture: .osaka
    ),
  ]

  static var csv: String {
    let table = ResponseTable(survey: survey, earlier: [first])
    return CSVFormat.header(table) + responses.map { CSVFormat.line(table.row($0)) }.joined()
  }

  @Test func theCSVOfASurveyWithEveryKindOfQuestionIsPinned() {
    let csv = Self.csv
    #expect(csv.utf8.starts(with: [0xEF, 0xBB, 0xBF]), "UTF-8 with a byte order mark")
    #expect(csv.hasSuffix("\r\n"))
    // Line ends shown (␍), so that the pinned file says which are CRLF: every row's, and not the
    // line break inside the free text.
    assertSnapshot(of: csv.replacingOccurrences(of: "\r\n", with: "␍\n"), as: .lines)
  }

  @Test func cellsASpreadsheetWouldRunAreNeutralisedAndNumbersStayNumbers() {
    #expect(CSVFormat.field(.text("=HYPERLINK(\"x\")")) == "\"'=HYPERLINK(\"\"x\"\")\"")
    for start in ["=", "+", "-", "@", "\t", "\r"] {
      #expect(CSVFormat.field(.text(start + "1")).hasPrefix("'") || CSVFormat.field(.text(start + "1")).hasPrefix("\"'"), "\(start.debugDescription)")
    }
    #expect(CSVFormat.field(.number(-5)) == "-5")
    #expect(CSVFormat.field(.text("東京都")) == "東京都")
    #expect(CSVFormat.field(.text("a,b")) == "\"a,b\"")
  }

  /// The fields are written as bytes: a field is quoted for a comma, a quote or any line break
  /// (NEL, LS and PS too, by their UTF-8), never for a byte of those inside another character,
  /// and every quote in it is doubled.
  @Test func fieldsAreQuotedForTheirCharactersNotForBytesInsideOthers() {
    let expected: [(String, String)] = [
      ("a\"b", "\"a\"\"b\""),
      ("\"\"", "\"\"\"\"\"\""),
      ("改行\r\nあり", "\"改行\r\nあり\""),
      ("次\u{85}行", "\"次\u{85}行\""),
      ("行\u{2028}区切り", "\"行\u{2028}区切り\""),
      ("段落\u{2029}", "\"段落\u{2029}\""),
      ("\u{C5}", "\u{C5}"),  // Å, C3 85: an 85 after another lead byte
      ("\u{2027}", "\u{2027}"),  // E2 80 A7: next to LS, not a break
      ("-5", "'-5"),
      ("=1,2", "\"'=1,2\""),
      ("", ""),
    ]
    for (text, field) in expected {
      #expect(CSVFormat.field(.text(text)) == field, "\(text.debugDescription)")
    }
    #expect(CSVFormat.field(.number(Int.min)) == String(Int.min))
    #expect(CSVFormat.field(.number(0)) == "0")
    #expect(CSVFormat.line([.text("a"), .empty, .number(12), .text("b\"")]) == "a,,12,\"b\"\"\"\r\n")
  }

  /// Whether the spreadsheet is here: Debian's `libreoffice-calc-nogui` and Python's `openpyxl`.
  /// Where it is not, the case is left out, visibly; CI sets `POINTAPP_TEST_SPREADSHEET=required`,
  /// which makes it run, and fail, whatever is installed.
  static let spreadsheetAvailable = ProcessInfo.processInfo.environment["POINTAPP_TEST_SPREADSHEET"] == "required"
    || FileManager.default.fileExists(atPath: "/usr/bin/soffice")

  /// The file as LibreOffice Calc opens it (converted to xlsx, headless) and openpyxl reads it
  /// back: Japanese intact, formulas shown as their text, numbers as numbers, one row per response.
  @Test(.enabled(if: spreadsheetAvailable, "needs LibreOffice Calc (apt-get install libreoffice-calc-nogui) and openpyxl"))
  func aSpreadsheetOpensTheCSVAsItIs() async throws {
    let folder = scratch("csv")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("responses.csv")
    try Data(Self.csv.utf8).write(to: file)
    // Comma-separated, `"` quoted, UTF-8 (76), from the first line: what Excel assumes of a CSV
    // with a byte order mark.
    try await run("soffice", ["--headless", "-env:UserInstallation=file://\(folder.path)/profile", "--infilter=CSV:44,34,76,1",
                        "--convert-to", "xlsx", "--outdir", folder.path, file.path])
    let read = try await run("python3", ["-c", """
      import json, sys, openpyxl
      sheet = openpyxl.load_workbook(sys.argv[1]).active
      print(json.dumps([[c.value for c in row] for row in sheet.iter_rows()], ensure_ascii=False, default=str))
      """, folder.appendingPathComponent("responses.xlsx").path])
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(read.utf8)) as? [[Any]])
    #expect(rows.count == 2 + Self.responses.count, "two heading rows, then one row per response")
    let codes = rows[0].map { "\($0)" }
    let headings = rows[1].map { "\($0)" }
    let first = rows[2]
    func cell(_ code: String, in row: [Any]) -> Any? {
      codes.firstIndex(of: code).flatMap { $0 < row.count && !(row[$0] is NSNull) ? row[$0] : nil }
    }
    #expect(codes.first == "respondent", "no byte order mark in the first cell")
    #expect(headings.contains("Q6 ひとこと"))
    #expect(cell("Q6", in: first) as? String == Self.trickyText, "Japanese, the comma, the quotes and the line break intact")
    #expect(cell("Q7", in: first) as? String == "'" + Self.formula, "the formula shown as its text, not run")
    #expect(cell("Q4", in: first) as? Int == -5, "a number stays a number")
    #expect(cell("Q2_1", in: first) as? Int == 1)
    #expect(cell("Q2_2", in: first) as? Int == 0)
    #expect(cell("Q3_1", in: first) as? String == "満足")
    #expect(cell("prefecture", in: first) as? String == "東京都")
    #expect(cell("Q2_3", in: first) as? Int == 1, "the fruit picked")
    #expect(cell("Q2_order", in: first) as? String == "3 1 2", "the foods in the order shown")
    #expect(cell("cell", in: first) as? String == "女性")
    // The first version's answer: its removed question kept, the option it lacked blank, not 0.
    let early = rows[3]
    #expect(cell("Q9", in: early) as? String == "お茶")
    #expect(headings.contains("Q9［第1版］ 朝の飲み物は？"))
    #expect(cell("Q2_2", in: early) as? Int == 1)
    #expect(cell("Q2_1", in: early) as? Int == 0)
    #expect(cell("Q2_3", in: early) == nil, "never offered: blank")
    #expect(cell("Q9", in: first) == nil, "not asked of the second version's")
    #expect(cell("outcome", in: rows[4]) as? String == "対象外")
    #expect(cell("Q2_1", in: rows[4]) == nil, "screened out: not shown")
    #expect(cell("Q2_order", in: rows[4]) == nil, "no order for what was not shown")
    #expect(cell("Q7", in: rows[5]) as? String == "'+81 90 0000 0000")
    #expect(cell("Q2_1", in: rows[5]) as? Int == 0, "shown, nothing picked")
  }

  /// Runs a program found on the PATH, waited for on a thread of its own; its standard output.
  @discardableResult
  func run(_ program: String, _ arguments: [String]) async throws -> String {
    try await offThePool { try Self.runWaiting(program, arguments) }
  }

  static func runWaiting(_ program: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(program) exited with \(process.terminationStatus)"])
    }
    return String(decoding: data, as: UTF8.self)
  }
}
