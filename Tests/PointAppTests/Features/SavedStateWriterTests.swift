import Foundation
import PointApp
import Testing

/// `savedData()` writes its JSON by hand for speed; it must stay byte for byte what `JSONEncoder`
/// gives from the `Codable` conformances, which are what reads it back.
struct SavedStateWriterTests {
  static let v1Fixture: AppFeature.State = {
    let url = Bundle.module.url(forResource: "user-state-v1", withExtension: "json", subdirectory: "Fixtures")!
    return try! AppFeature.State(savedData: Data(contentsOf: url))
  }()

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
        to: .fixture(id: "survey-\(number)", reward: 800), with: answers, id: TransactionID(UUID()), at: date, on: today
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
    let written = try state.savedData()
    let encoded = try SavedJSON.encode(state)
    #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    #expect(try AppFeature.State(savedData: written).savedData() == written)
  }

  @Test func severalClaimedMissionsRoundTrip() throws {
    var progress = UserProgress()
    progress.recordVisit(on: today, at: noon)
    progress.recordAnswer(to: .breakfast, with: [], id: TransactionID(UUID(1)), at: noon, on: today)
    try progress.claimMission(.answerOne, id: TransactionID(UUID(2)), at: noon, on: today)
    try progress.claimMission(.visit, id: TransactionID(UUID(3)), at: noon, on: today)
    var state = AppFeature.State()
    state.progress = progress
    let reread = try AppFeature.State(savedData: state.savedData())
    #expect(reread.progress.missions == progress.missions)
    #expect(String(decoding: try state.savedData(), as: UTF8.self).contains(#""claimed":["visit","answerOne"]"#))
  }
}
