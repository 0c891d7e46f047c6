import Foundation
import PointApp
import PointAppWeb
import Testing

/// A survey page's questions are rendered once for everyone who has not answered them yet, and
/// kept (`PageRenderer.surveyQuestions`): what a member sees must still be their own page.
struct SurveyPageFragmentTests {
  static func survey(asking text: String) -> Survey {
    Survey(
      id: SurveyID("drinks"), title: "飲み物の調査", description: "ふだんの飲み物について", category: .food,
      questions: [
        SurveyQuestion(id: QuestionID("tea"), text: text, kind: .singleChoice(choices: [
          .init(id: ChoiceID("green"), label: "緑茶"), .init(id: ChoiceID("black"), label: "紅茶"),
        ])),
        SurveyQuestion(id: QuestionID("why"), text: "理由は？", kind: .freeText(required: false, maxLength: 100)),
      ],
      reward: 20, estimatedMinutes: 1, publishedAt: Date(timeIntervalSince1970: 1_790_000_000), expiresAt: nil
    )
  }

  static func page(
    _ survey: Survey, draft: AnswerDraft = [:], errors: [QuestionID: AnswerError] = [:], with renderer: PageRenderer
  ) -> String {
    var state = AppFeature.State()
    state.surveyDetailPage = SurveyDetail.Page(surveyID: survey.id)
    state.surveyDetailPage?.draft = draft
    state.surveyDetailPage?.errors = errors
    // As the survey feature leaves a page whose order is each respondent's own.
    state.surveyDetailPage?.questions = survey.questions
    return renderer.render("survey", Pages.survey(state, survey: survey, csrf: "token", fragments: renderer))
  }

  static func renderer() async throws -> PageRenderer {
    try await PageRenderer(directory: repositoryRoot.appendingPathComponent("Templates"))
  }

  @Test func aKeptQuestionIsTheSamePageAsOneRenderedAnew() async throws {
    let (kept, fresh) = (try await Self.renderer(), try await Self.renderer())
    let survey = Self.survey(asking: "よく飲むお茶は？")
    _ = Self.page(survey, with: kept)
    let page = Self.page(survey, with: kept)
    #expect(page == Self.page(survey, with: fresh))
    #expect(page.contains("よく飲むお茶は？") && page.contains(#"name="q[tea]" value="green">"#))
  }

  @Test func aMembersAnswersAndErrorsShowOnAPageWhoseQuestionsWereKept() async throws {
    let renderer = try await Self.renderer()
    let survey = Self.survey(asking: "よく飲むお茶は？")
    _ = Self.page(survey, with: renderer)
    let answered = Self.page(survey, draft: [QuestionID("tea"): ["black"], QuestionID("why"): ["香りが好き"]], with: renderer)
    #expect(answered.contains(#"value="black" checked>"#) && answered.contains(">香りが好き</textarea>"))
    let refused = Self.page(survey, errors: [QuestionID("tea"): .required], with: renderer)
    #expect(refused.contains(#"<p class="field-error" id="q-tea-error">回答してください。</p>"#))
    #expect(refused.contains(##"<a href="#q-tea">Q1：回答してください。</a>"##))
    // And the next member, who has answered nothing, sees none of it.
    let blank = Self.page(survey, with: renderer)
    #expect(!blank.contains("checked") && !blank.contains("香りが好き") && !blank.contains("field-error"))
  }

  /// A question's number is part of it: the same question elsewhere in the order (another
  /// respondent's, another version's) is numbered where it is.
  @Test func aQuestionMovedInTheOrderShowsItsNewNumber() async throws {
    let renderer = try await Self.renderer()
    let survey = Self.survey(asking: "よく飲むお茶は？")
    _ = Self.page(survey, with: renderer)
    let moved = Survey(
      id: survey.id, title: survey.title, description: survey.description, category: survey.category,
      questions: survey.questions.reversed(), reward: survey.reward, estimatedMinutes: survey.estimatedMinutes,
      publishedAt: survey.publishedAt, expiresAt: nil
    )
    let page = Self.page(moved, with: renderer)
    #expect(page.contains(#"<span class="number">Q2</span>よく飲むお茶は？"#) && page.contains(#"<span class="number">Q1</span>理由は？"#))
  }

  /// Choices each respondent sees in an order of their own (the survey feature's, here given) are
  /// shown in theirs.
  @Test func choicesInEachRespondentsOrderAreShownInTheirs() async throws {
    let renderer = try await Self.renderer()
    func asking(_ choices: [SurveyQuestion.Choice]) -> Survey {
      Survey(
        id: SurveyID("shuffled"), title: "飲み物の調査", description: "ふだんの飲み物について", category: .food,
        questions: [SurveyQuestion(id: QuestionID("tea"), text: "よく飲むお茶は？", kind: .singleChoice(choices: choices), shufflesChoices: true)],
        reward: 20, estimatedMinutes: 1, publishedAt: Date(timeIntervalSince1970: 1_790_000_000), expiresAt: nil
      )
    }
    let (green, black) = (SurveyQuestion.Choice(id: ChoiceID("green"), label: "緑茶"), SurveyQuestion.Choice(id: ChoiceID("black"), label: "紅茶"))
    for order in [[green, black], [black, green], [green, black]] {
      let page = Self.page(asking(order), with: renderer)
      let positions = order.map { page.range(of: #"value="\#($0.id.rawValue)""#)?.lowerBound }
      #expect(positions[0] != nil && positions[1] != nil && positions[0]! < positions[1]!)
    }
  }

  @Test func aQuestionEditedUnderTheSameIdIsRenderedAnew() async throws {
    let renderer = try await Self.renderer()
    _ = Self.page(Self.survey(asking: "よく飲むお茶は？"), with: renderer)
    let edited = Self.page(Self.survey(asking: "いちばん好きなお茶は？"), with: renderer)
    #expect(edited.contains("いちばん好きなお茶は？") && !edited.contains("よく飲むお茶は？"))
  }
}
