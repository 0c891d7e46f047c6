import CustomDump
import Foundation
import PointApp
import Testing

/// The editor's form holds every field the catalog has: each shipped survey, made a form and
/// back, is the same survey (at the version asked for).
struct SurveyFormTests {
  @Test(arguments: Catalog.shipped(seededAt: noon))
  func everyShippedSurveyGoesThroughTheFormUnchanged(_ survey: Survey) throws {
    let rebuilt = try SurveyForm(survey).survey(id: survey.id, version: 1, base: survey).get()
    expectNoDifference(rebuilt, survey)
  }

  @Test func anEditKeepsTheIdsOfTheChoicesAndRowsItKeepsAndNumbersNewOnes() throws {
    let grid = SurveyQuestion(id: QuestionID("g"), text: "満足度", kind: .grid(
      rows: [.init(id: "taste", label: "味"), .init(id: "price", label: "値段", isOptional: true)],
      scale: [.init(id: ChoiceID("good"), label: "良い"), .init(id: ChoiceID("bad"), label: "悪い")]
    ))
    let survey = Survey(
      id: SurveyID("s"), title: "t", description: "d", category: .food, questions: [grid], reward: 10, estimatedMinutes: 1,
      publishedAt: noon, expiresAt: nil, quota: Quota(target: 100, collected: 40)
    )
    var form = SurveyForm(survey)
    form.questions[0].rows = "量\n味\n値段（任意）"
    form.questions[0].choices = "悪い\n普通\n良い"
    form.quota = "120"
    let edited = try form.survey(id: survey.id, version: 2, base: survey).get()
    #expect(edited.questions[0].kind == .grid(
      rows: [.init(id: "r1", label: "量"), .init(id: "taste", label: "味"), .init(id: "price", label: "値段", isOptional: true)],
      scale: [.init(id: ChoiceID("bad"), label: "悪い"), .init(id: ChoiceID("c1"), label: "普通"), .init(id: ChoiceID("good"), label: "良い")]
    ))
    #expect(edited.quota == Quota(target: 120, collected: 40), "the count from other channels stays")
    #expect(edited.version == 2)
  }

  @Test func datesAreTokyosWallClockToTheMinute() throws {
    #expect(SurveyForm.formatted(noon) == "2026-11-22T12:00")
    var form = SurveyForm(Catalog.shipped(seededAt: noon)[0])
    form.publishAt = "2026-11-22T12:00"
    form.deadline = "2026-02-30T10:00"
    guard case let .failure(errors) = form.survey(id: SurveyID("x"), version: 1, base: nil) else {
      Issue.record("a 30th of February was taken")
      return
    }
    #expect(errors["deadline"] == "締切日時は「2026-12-01T10:00」の形で入力してください")
    form.deadline = ""
    #expect(try form.survey(id: SurveyID("x"), version: 1, base: nil).get().publishedAt == noon)
  }

  @Test func questionsAreAddedMovedAndRemoved() {
    var form = SurveyForm()
    form.addQuestion(.single)
    form.addQuestion(.grid)
    form.addQuestion(.number)
    #expect(form.questions.map(\.id) == ["q1", "q2", "q3"])
    form.moveQuestion(at: 2, by: -1)
    form.moveQuestion(at: 0, by: -1)  // the first cannot go up
    #expect(form.questions.map(\.id) == ["q1", "q3", "q2"])
    form.removeQuestion(at: 0)
    form.removeQuestion(at: 9)  // no such question
    form.addQuestion(.rating)
    #expect(form.questions.map(\.id) == ["q3", "q2", "q1"], "a new question takes the first id not in use")
  }
}
