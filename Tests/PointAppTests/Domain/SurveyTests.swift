import Foundation
import PointApp
import Testing

struct SurveyTests {
  @Test func isAvailableFromPublicationUntilExpiry() {
    #expect(Survey.travel.isAvailable(at: noon))
    #expect(!Survey.travel.isAvailable(at: noon + days(30)))
    #expect(!Survey.travel.isAvailable(at: noon - days(31)))
    #expect(!Survey.expired.isAvailable(at: noon))
    #expect(Survey.breakfast.isAvailable(at: noon + days(3_650)))
  }

  @Test func rewardEfficiencyIsPointsPerMinute() {
    #expect(Survey.breakfast.rewardEfficiency() == 20)
    #expect(Survey.fixture(minutes: 0).rewardEfficiency() == 0)
  }

  @Test func validAnswersBecomeTypedAnswers() throws {
    let answers = try Survey.breakfast.validateAnswers(
      breakfastAnswers.merging([QuestionID("comment"): ["  おいしい  "]]) { $1 }
    ).get()
    #expect(answers == [
      SurveyAnswer(questionID: QuestionID("frequency"), value: .choice(ChoiceID("daily"))),
      SurveyAnswer(questionID: QuestionID("foods"), value: .choices([ChoiceID("fruit"), ChoiceID("rice")])),
      SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(4)),
      SurveyAnswer(questionID: QuestionID("comment"), value: .text("おいしい")),
    ])
  }

  @Test func anEmptyDraftSaysWhichQuestionsAreRequired() {
    #expect(Survey.breakfast.validateAnswers([:]) == .failure(AnswerErrors(byQuestion: [
      QuestionID("frequency"): .required,
      QuestionID("foods"): .required,
      QuestionID("satisfaction"): .required,
    ])))
  }

  @Test(arguments: [
    (QuestionID("frequency"), ["weekly"], AnswerError.unknownChoice),
    (QuestionID("frequency"), ["daily", "rarely"], .tooManyPicks(max: 1)),
    (QuestionID("foods"), ["rice", "bread", "fruit"], .tooManyPicks(max: 2)),
    (QuestionID("foods"), ["rice", "cake"], .unknownChoice),
    (QuestionID("satisfaction"), ["6"], .invalidRating),
    (QuestionID("satisfaction"), ["good"], .invalidRating),
    (QuestionID("comment"), ["とても長いご意見です。本当に"], .tooLong(max: 10)),
  ])
  func eachKindOfQuestionRefusesBadInput(question: QuestionID, inputs: [String], error: AnswerError) {
    var draft = breakfastAnswers
    draft[question] = inputs
    #expect(Survey.breakfast.validateAnswers(draft) == .failure(AnswerErrors(byQuestion: [question: error])))
  }

  @Test func pickingTheSameChoiceTwiceCountsOnce() throws {
    var draft = breakfastAnswers
    draft[QuestionID("foods")] = ["rice", "rice", "bread"]
    let answers = try Survey.breakfast.validateAnswers(draft).get()
    #expect(answers[1].value == .choices([ChoiceID("bread"), ChoiceID("rice")]))
  }

  @Test func tooFewPicksAreRefused() {
    let survey = Survey.fixture(questions: [
      SurveyQuestion(
        id: QuestionID("two"), text: "2つ選んでください",
        kind: .multipleChoice(
          choices: [.init(id: ChoiceID("a"), label: "A"), .init(id: ChoiceID("b"), label: "B")],
          minPicks: 2, maxPicks: 2
        )
      )
    ])
    #expect(survey.validateAnswers([QuestionID("two"): ["a"]])
      == .failure(AnswerErrors(byQuestion: [QuestionID("two"): .tooFewPicks(min: 2)])))
  }

  @Test func sortsByNewestRewardOrEfficiency() {
    let surveys = [Survey.breakfast, .sweets, .travel]
    #expect(SurveySort.newest.sorted(surveys).map(\.id.rawValue) == ["sweets", "breakfast", "travel"])
    #expect(SurveySort.reward.sorted(surveys).map(\.id.rawValue) == ["travel", "sweets", "breakfast"])
    #expect(SurveySort.efficiency.sorted(surveys).map(\.id.rawValue) == ["travel", "breakfast", "sweets"])
  }
}

/// The question kinds research panels use: grids, numbers, long texts, attention checks.
struct PanelQuestionTests {
  static let scale: [SurveyQuestion.Choice] = ["c1", "c2", "c3", "c4"].map { .init(id: ChoiceID($0), label: $0) }
  static let grid = SurveyQuestion(id: QuestionID("g"), text: "満足度", kind: .grid(rows: [
    .init(id: "battery", label: "バッテリー"), .init(id: "camera", label: "カメラ"), .init(id: "price", label: "価格", isOptional: true),
  ], scale: scale))

  func answer(_ question: SurveyQuestion, _ inputs: [String]) -> Result<SurveyAnswer.Value?, AnswerError> {
    Survey.fixture(questions: [question]).validateAnswers([question.id: inputs]).map { $0.first?.value }.mapError { $0.byQuestion[question.id]! }
  }

  @Test func everyRequiredRowOfAGridIsAnsweredOnceOnItsScale() {
    #expect(answer(Self.grid, ["battery:c1", "camera:c4"]) == .success(.grid([
      GridCell(row: "battery", choice: ChoiceID("c1")), GridCell(row: "camera", choice: ChoiceID("c4")),
    ])))
    #expect(answer(Self.grid, ["camera:c2", "price:c3", "battery:c1"]).map { value -> Int in
      if case let .grid(cells) = value { cells.count } else { 0 }
    } == .success(3))
    #expect(answer(Self.grid, ["battery:c1"]) == .failure(.rowsUnanswered(["カメラ"])))
    #expect(answer(Self.grid, []) == .failure(.rowsUnanswered(["バッテリー", "カメラ"])))
    #expect(answer(Self.grid, ["battery:c1", "camera:c9"]) == .failure(.unknownChoice))
    #expect(answer(Self.grid, ["battery:c1", "forged:c1", "camera:c1"]) == .failure(.unknownChoice))
    #expect(answer(Self.grid, ["battery:c1", "battery:c2", "camera:c1"]) == .failure(.tooManyPicks(max: 1)))
  }

  @Test func aNumberIsWholeWithinItsRangeInEitherWidth() {
    let minutes = SurveyQuestion(id: QuestionID("n"), text: "通勤時間", kind: .number(min: 0, max: 300, unit: "分"))
    #expect(answer(minutes, ["0"]) == .success(.number(0)))
    #expect(answer(minutes, ["300"]) == .success(.number(300)))
    #expect(answer(minutes, ["１２０"]) == .success(.number(120)))
    #expect(answer(minutes, ["301"]) == .failure(.outOfRange(min: 0, max: 300)))
    #expect(answer(minutes, ["-1"]) == .failure(.outOfRange(min: 0, max: 300)))
    #expect(answer(minutes, ["12a"]) == .failure(.notANumber))
    #expect(answer(minutes, ["1.5"]) == .failure(.notANumber))
    #expect(answer(minutes, []) == .failure(.required))
    let yen = SurveyQuestion(id: QuestionID("y"), text: "金額", kind: .number(min: 0, max: 1_000_000, unit: "円"))
    #expect(answer(yen, ["10,000"]) == .success(.number(10_000)))
  }

  @Test func aLongTextHasItsMinimumAndMaximumLength() {
    let text = SurveyQuestion(id: QuestionID("t"), text: "ご意見", kind: .longText(minLength: 20, maxLength: 25))
    #expect(answer(text, [String(repeating: "あ", count: 19)]) == .failure(.tooShort(min: 20)))
    #expect(answer(text, [String(repeating: "あ", count: 20)]) == .success(.text(String(repeating: "あ", count: 20))))
    #expect(answer(text, [String(repeating: "あ", count: 25)]) == .success(.text(String(repeating: "あ", count: 25))))
    #expect(answer(text, [String(repeating: "あ", count: 26)]) == .failure(.tooLong(max: 25)))
    #expect(answer(text, ["   "]) == .failure(.required))
  }

  /// Any of its choices is a valid answer: the instruction is checked as a sign of care, not here.
  @Test func anAttentionCheckTakesAnyOfItsChoices() {
    let check = SurveyQuestion(id: QuestionID("a"), text: "「いいえ」を選んでください", kind: .attentionCheck(
      choices: [.init(id: ChoiceID("yes"), label: "はい"), .init(id: ChoiceID("no"), label: "いいえ")], expected: ChoiceID("no")
    ))
    #expect(answer(check, ["yes"]) == .success(.choice(ChoiceID("yes"))))
    #expect(answer(check, ["no"]) == .success(.choice(ChoiceID("no"))))
    #expect(answer(check, ["maybe"]) == .failure(.unknownChoice))
    #expect(answer(check, []) == .failure(.required))
  }
}
