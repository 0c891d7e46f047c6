import Foundation
import PointApp
import Testing

@testable import PointAppWeb

/// The export's reader of stored responses reads what `SavedJSON` writes exactly as `JSONDecoder`
/// does, and refuses what it does not know (the store then uses `JSONDecoder`).
struct ResponseReaderTests {
  static let texts = ["", "ふつう", "a,b \"quoted\"\nnext line", "=HYPERLINK(\"http://x\")", "tab\there\\back/slash", "\u{1}\u{1F}", "絵文字🎌", "\r\n"]

  /// Responses of every kind of answer and outcome, with and without their optional fields.
  static func responses(count: Int) -> [SurveyResponse] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { number in
      let text = texts[number % texts.count]
      let answers: [SurveyAnswer] = [
        SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("c\(number % 5)"))),
        SurveyAnswer(questionID: QuestionID("q2"), value: .choices((0..<(number % 4)).map { ChoiceID("m\($0)") })),
        SurveyAnswer(questionID: QuestionID("q3"), value: .text(text)),
        SurveyAnswer(questionID: QuestionID("q4"), value: .rating(number % 5 + 1)),
        SurveyAnswer(questionID: QuestionID("q5"), value: .number(number % 3 == 0 ? -number : number * 1_000)),
        SurveyAnswer(questionID: QuestionID("q6"), value: .grid([GridCell(row: "行\(number % 3)", choice: ChoiceID("s1")), GridCell(row: text, choice: ChoiceID("s2"))])),
      ]
      let sent = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0...4_102_444_800, using: &generator)))
      return SurveyResponse(
        surveyID: SurveyID("s-\(number % 7)"), version: number % 3 + 1, respondent: "r-\(number)",
        outcome: SurveyResponse.Outcome.allCases[number % 4], answers: number % 4 == 1 ? [] : answers,
        screening: number % 2 == 0 ? [SurveyAnswer(questionID: QuestionID("s1"), value: .choice(ChoiceID("yes")))] : [],
        shownAt: number % 5 == 0 ? nil : sent - TimeInterval(number % 600), sentAt: sent,
        flags: Array(QualityCheck.allCases.prefix(number % (QualityCheck.allCases.count + 1))), reviewed: number % 2 == 1,
        paid: PointAmount(number % 4 == 2 ? 0 : 40)!, ageBand: number % 6 == 0 ? nil : number % 7 * 10,
        gender: number % 3 == 0 ? nil : Gender.allCases[number % Gender.allCases.count],
        prefecture: number % 4 == 0 ? nil : Prefecture.allCases[number % Prefecture.allCases.count],
        order: number % 3 == 1 ? nil : ShownOrder(
          questions: number % 2 == 0 ? nil : [QuestionID("q2"), QuestionID(text)],
          choices: number % 5 == 0 ? [:] : [QuestionID("q1"): [ChoiceID("c2"), ChoiceID(text)], QuestionID(text): []]
        ),
        cell: number % 4 == 3 ? nil : "female-\(number % 7 * 10)"
      )
    }
  }

  @Test func readsWhatIsWrittenAsJSONDecoderDoes() throws {
    for response in Self.responses(count: 500) {
      let stored = try SavedJSON.encode(response)
      let read = try ResponseReader.response(from: stored)
      #expect(read == response)
      #expect(read == (try SavedJSON.decode(SurveyResponse.self, from: stored)))
    }
  }

  /// White space wherever JSON allows it (what `SavedJSON` writes has none).
  @Test func readsAPrettyPrintedRecord() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    for response in Self.responses(count: 50) {
      let stored = try encoder.encode(response)
      #expect(String(decoding: stored, as: UTF8.self).contains("\n  "))
      #expect(try ResponseReader.response(from: stored) == response)
    }
  }

  @Test(arguments: [
    #"{"answers":[{"questionID":"q","value":{"choice":{"_0":"a","_1":"b"}}}],"flags":[],"outcome":"completed","paid":1,"respondent":"r","reviewed":false,"screening":[],"sentAt":"2026-11-24T03:04:05Z","surveyID":"s","version":1}"#,
    #"{"answers":[{"questionID":"q","value":{"choice":{"_0":"a"},"text":{"_0":"b"}}}],"flags":[],"outcome":"completed","paid":1,"respondent":"r","reviewed":false,"screening":[],"sentAt":"2026-11-24T03:04:05Z","surveyID":"s","version":1}"#,
    #"{"surveyID":"s","version":1.5}"#,
    #"{"unknown":1}"#,
    #"{"answers":[],"flags":[],"outcome":"completed","paid":1,"respondent":"r","reviewed":false,"screening":[],"sentAt":"2026-11-24 03:04:05","surveyID":"s","version":1}"#,
    #"{"answers":[],"flags":[],"outcome":"completed","paid":1,"respondent":"r","reviewed":false,"screening":[],"sentAt":"2026-11-24T03:04:05Z","surveyID":"s","version":1"#,
    #"{"answers":[],"flags":[],"outcome":"completed","paid":1,"respondent":"r\ud800","reviewed":false,"screening":[],"sentAt":"2026-11-24T03:04:05Z","surveyID":"s","version":1}"#,
  ])
  func refusesWhatItDoesNotKnow(json: String) {
    #expect(throws: ResponseReader.Unreadable.self) { try ResponseReader.response(from: Data(json.utf8)) }
  }

  @Test func readsTheEscapesJSONAllows() throws {
    let json = #"{"answers":[{"questionID":"q","value":{"text":{"_0":"\u00e9\ud83c\udf8c\/\b\f\"\\"}}}],"flags":[],"outcome":"completed","paid":1,"respondent":"r","reviewed":false,"screening":[],"sentAt":"2024-02-29T23:59:59Z","surveyID":"s","version":1}"#
    let read = try ResponseReader.response(from: Data(json.utf8))
    #expect(read == (try SavedJSON.decode(SurveyResponse.self, from: Data(json.utf8))))
    #expect(read.answers.first?.value == .text("é🎌/\u{8}\u{C}\"\\"))
  }
}
