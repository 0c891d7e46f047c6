import Dependencies
import Foundation
import PointApp
import PointAppWeb
import Testing

/// A file written by schema version 1, which kept every movement and answer in the user's file.
let version1File = try! Data(
  contentsOf: Bundle.module.url(forResource: "user-state-v1", withExtension: "json", subdirectory: "Fixtures")!
)

/// A file written by schema version 2 (the bounded ledger, drafts, the address typed at sign-in):
/// saved by the program of that version, before profiles, screening and quotas.
let version2File = try! Data(
  contentsOf: Bundle.module.url(forResource: "user-state-v2", withExtension: "json", subdirectory: "Fixtures")!
)

/// A user's file: their data only, the same bytes for the same state, older versions read and
/// newer ones refused.
struct SavedStateTests {
  /// Progress after answering `surveys` at noon.
  static func answered(_ surveys: [Survey]) -> UserProgress {
    var progress = UserProgress()
    for (number, survey) in surveys.enumerated() {
      progress.recordAnswer(to: survey, with: [], id: TransactionID(UUID(number)), at: noon, on: Day(noon, in: .tokyo))
    }
    return progress
  }

  @Test func holdsTheUsersDataOnlyNeverPagesOrCatalog() throws {
    var state = AppFeature.State()
    state.progress = Self.answered([testCatalog[0]])
    state.surveyListPage.surveys = [testCatalog[1]]
    state.flash = Flash(.success, "ok")
    let saved = SavedState.data(for: state)
    let json = try JSONSerialization.jsonObject(with: saved) as? [String: Any]
    #expect(Set(json?.keys ?? [:].keys) == ["schemaVersion", "progress", "flash"])
    #expect(!String(decoding: saved, as: UTF8.self).contains(testCatalog[1].title))

    let reloaded = try SavedState.state(from: saved)
    #expect(reloaded.progress == state.progress)
    #expect(reloaded.flash == state.flash)
    #expect(reloaded.surveyListPage == SurveyList.Page())
  }

  @Test func sameStateSameBytes() throws {
    var state = AppFeature.State()
    state.progress = Self.answered(testCatalog)
    let saved = SavedState.data(for: state)
    #expect(SavedState.data(for: try SavedState.state(from: saved)) == saved)
  }

  @Test func readsAFileSavedBySchemaVersion1() throws {
    let state = try SavedState.state(from: version1File)
    let today = Day(noon, in: .tokyo)
    #expect(state.progress.ledger.balance == 45)
    #expect(state.progress.ledger.totalEarned == 45)
    #expect(state.progress.ledger.recent.count == 2)
    #expect(state.progress.answeredCount == 1)
    #expect(state.progress.answered[SurveyID("food-001")]?.answers.count == 3)
    #expect(state.progress.streak.days(asOf: today) == 3)
    #expect(state.progress.missions.missions(on: today).first?.isClaimed == true)
    #expect(state.progress.achievements.keys.contains(.firstAnswer))
    #expect(state.flash?.kind == .success)
  }

  @Test func readsAFileSavedBySchemaVersion2() throws {
    let state = try SavedState.state(from: version2File)
    let today = Day(noon, in: .tokyo)
    #expect(state.progress.ledger.balance == 110)
    #expect(state.progress.ledger.recent.map(\.amount) == [40, 60, 10])
    #expect(state.progress.answeredCount == 2)
    #expect(state.progress.answered[SurveyID("breakfast")]?.answers.last?.value == .text("おいしい \"朝\""))
    #expect(state.progress.answered[SurveyID("sweets")]?.reward == 60)
    #expect(state.progress.missions.missions(on: today).first { $0.kind == .answerOne }?.isClaimed == true)
    #expect(state.progress.streak.days(asOf: today) == 1)
    #expect(state.draft == SurveyDraft([QuestionID("satisfaction"): ["9"]], of: testCatalog[1]))
    #expect(state.enteredEmail == "hanako@example.jp")
    #expect(state.flash == Flash(.success, "回答ありがとうございました。"))
    // Saved again by this program, it reads back the same.
    #expect(try SavedState.state(from: SavedState.data(for: state)) == state)
  }

  @Test func refusesAFileFromANewerVersion() throws {
    // A file this version would read, but for its number.
    let current = String(decoding: SavedState.data(for: AppFeature.State()), as: UTF8.self)
    #expect(try SavedState.state(from: Data(current.utf8)) == AppFeature.State())
    let newer = current.replacingOccurrences(of: #""schemaVersion":\#(SavedState.schemaVersion)"#, with: #""schemaVersion":\#(SavedState.schemaVersion + 1)"#)
    #expect(newer != current)
    #expect(throws: DecodingError.self) { try SavedState.state(from: Data(newer.utf8)) }
    let unversioned = Data(#"{"progress": {}}"#.utf8)
    #expect(throws: DecodingError.self) { try SavedState.state(from: unversioned) }
  }
}
