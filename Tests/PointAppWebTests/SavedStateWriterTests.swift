import Dependencies
import Foundation
import PointApp
@testable import PointAppWeb
import Testing

/// `SavedState.data(for:)` writes its JSON by hand for speed; it must stay byte for byte what
/// `JSONEncoder` gives for the file's `Codable` form, which is what reads it back.
struct SavedStateWriterTests {
  static let today = Day(noon, in: .tokyo)

  static func survey(_ id: String, reward: PointAmount) -> Survey {
    Survey(
      id: SurveyID(id), title: id, description: "", category: .food, questions: [], reward: reward,
      estimatedMinutes: 1, publishedAt: noon, expiresAt: nil
    )
  }

  static let v1Fixture = try! SavedState.state(from: version1File)

  /// Every kind of answer and movement, text that needs escaping, dates before 1970, on a leap day
  /// and with fractions of a second.
  static var everything: AppFeature.State {
    var progress = UserProgress()
    let texts = ["say \"hi\"\\ / back", "line\nbreak\ttab\u{01}\u{1F}", "絵文字🎉とカナ", ""]
    let dates = [
      Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: 951_782_400.999), noon + 0.7,
      Date(timeIntervalSince1970: 4_102_444_799),
    ]
    for (number, date) in dates.enumerated() {
      let answers = [
        SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("c-\(number)"))),
        SurveyAnswer(questionID: QuestionID("q2"), value: .choices([ChoiceID("a"), ChoiceID("b\"")])),
        SurveyAnswer(questionID: QuestionID("q3"), value: .text(texts[number])),
        SurveyAnswer(questionID: QuestionID("q4"), value: .rating(number + 1)),
      ]
      progress.recordAnswer(
        to: survey("survey-\(number)", reward: 800), with: answers, id: TransactionID(UUID()), at: date, on: today
      )
    }
    progress.recordVisit(on: today, at: noon)
    try! progress.claimMission(.visit, id: TransactionID(UUID()), at: noon, on: today)
    try! progress.exchange(ExchangeOption.all[0], id: TransactionID(UUID()), at: noon + 1)
    var state = AppFeature.State()
    state.progress = progress
    state.flash = Flash(.error, "「引用」と \"quotes\"\n改行")
    return state
  }

  @Test(arguments: [AppFeature.State(), v1Fixture, everything])
  func writesWhatJSONEncoderWrites(state: AppFeature.State) throws {
    let written = SavedState.data(for: state)
    let encoded = try SavedJSON.encode(SavedState.File(state))
    #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    #expect(SavedState.data(for: try SavedState.state(from: written)) == written)
  }

  @Test func severalClaimedMissionsRoundTrip() throws {
    var progress = UserProgress()
    progress.recordVisit(on: Self.today, at: noon)
    progress.recordAnswer(to: testCatalog[0], with: [], id: TransactionID(UUID(1)), at: noon, on: Self.today)
    try progress.claimMission(.answerOne, id: TransactionID(UUID(2)), at: noon, on: Self.today)
    try progress.claimMission(.visit, id: TransactionID(UUID(3)), at: noon, on: Self.today)
    var state = AppFeature.State()
    state.progress = progress
    let saved = SavedState.data(for: state)
    #expect(try SavedState.state(from: saved).progress.missions == progress.missions)
    #expect(String(decoding: saved, as: UTF8.self).contains(#""claimed":["visit","answerOne"]"#))
  }
}
