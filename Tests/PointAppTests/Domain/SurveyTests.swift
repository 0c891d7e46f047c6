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
