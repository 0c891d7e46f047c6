import Foundation
import PointApp
import Testing

typealias Rule = DisplayCondition.Rule

extension Survey {
  /// 朝ごはん with skip logic: what is eaten is asked of those who eat it daily, why not of those
  /// who rarely do (its options shuffled, 「その他」 last); a comment only from the dissatisfied or
  /// those who spend a lot.
  static let branching = Survey.fixture(
    id: "branching", title: "分岐のある調査",
    questions: [
      .breakfastFrequency,
      SurveyQuestion(
        id: QuestionID("foods"), text: "よく食べるものは？", kind: SurveyQuestion.breakfastFoods.kind,
        condition: DisplayCondition(.all, [Rule(question: QuestionID("frequency"), choices: [ChoiceID("daily")])])
      ),
      SurveyQuestion(
        id: QuestionID("reason"), text: "食べない理由は？",
        kind: .singleChoice(choices: [
          .init(id: ChoiceID("busy"), label: "時間がない"), .init(id: ChoiceID("appetite"), label: "食欲がない"),
          .init(id: ChoiceID("diet"), label: "ダイエット中"), .init(id: ChoiceID("cost"), label: "お金がかかる"),
          .init(id: ChoiceID("other"), label: "その他"),
        ]),
        condition: DisplayCondition(.all, [Rule(question: QuestionID("frequency"), choices: [ChoiceID("rarely")])]),
        shufflesChoices: true
      ),
      .satisfaction,
      SurveyQuestion(id: QuestionID("spend"), text: "1か月の食費は？", kind: .number(min: 0, max: 100_000, unit: "円")),
      SurveyQuestion(
        id: QuestionID("comment"), text: "ご意見をどうぞ", kind: .freeText(required: true, maxLength: 100),
        condition: DisplayCondition(.any, [Rule(question: QuestionID("satisfaction"), max: 2), Rule(question: QuestionID("spend"), min: 50_000)])
      ),
    ]
  )

  /// The survey with `questions` (and `screening`) in place of its own.
  func with(_ questions: [SurveyQuestion], screening: Screening? = nil, cells: QuotaCells? = nil, shufflesQuestions: Bool = false) -> Survey {
    Survey(
      id: id, title: title, description: description, category: category, questions: questions, reward: reward,
      estimatedMinutes: estimatedMinutes, publishedAt: publishedAt, expiresAt: expiresAt, screening: screening,
      shufflesQuestions: shufflesQuestions, cells: cells
    )
  }
}

struct SurveyLogicTests {
  let frequency = QuestionID("frequency")

  @Test func aRuleTestsEachKindOfAnswer() {
    let picked = Rule(question: frequency, choices: [ChoiceID("a"), ChoiceID("b")])
    #expect(picked.isMet(by: .choice(ChoiceID("b"))))
    #expect(!picked.isMet(by: .choice(ChoiceID("c"))))
    #expect(picked.isMet(by: .choices([ChoiceID("c"), ChoiceID("a")])))
    #expect(!picked.isMet(by: .choices([])))
    #expect(!picked.isMet(by: nil), "a question not shown or left empty meets nothing")
    let row = Rule(question: frequency, row: "taste", choices: [ChoiceID("good")])
    #expect(row.isMet(by: .grid([GridCell(row: "price", choice: ChoiceID("bad")), GridCell(row: "taste", choice: ChoiceID("good"))])))
    #expect(!row.isMet(by: .grid([GridCell(row: "price", choice: ChoiceID("good"))])), "another row's answer")
    let range = Rule(question: frequency, min: 3, max: 5)
    #expect(range.isMet(by: .number(3)) && range.isMet(by: .rating(5)))
    #expect(!range.isMet(by: .number(6)) && !range.isMet(by: .rating(2)))
    #expect(Rule(question: frequency, min: 10).isMet(by: .number(1_000_000)))
    #expect(!Rule(question: frequency).isMet(by: .number(1)), "a rule that tests nothing is never met")
    #expect(!range.isMet(by: .text("4")))
  }

  @Test func allNeedsEveryRuleAndAnyOne() {
    let rules = [Rule(question: QuestionID("a"), choices: [ChoiceID("x")]), Rule(question: QuestionID("b"), min: 1)]
    let one: [QuestionID: SurveyAnswer.Value] = [QuestionID("a"): .choice(ChoiceID("x"))]
    let both = one.merging([QuestionID("b"): .number(2)]) { $1 }
    #expect(!DisplayCondition(.all, rules).isMet(by: one))
    #expect(DisplayCondition(.all, rules).isMet(by: both))
    #expect(DisplayCondition(.any, rules).isMet(by: one))
    #expect(!DisplayCondition(.any, rules).isMet(by: [:]))
  }

  @Test func aQuestionNotShownTakesNoAnswerWhateverWasSent() throws {
    let draft: AnswerDraft = [
      frequency: ["daily"], QuestionID("foods"): ["rice"], QuestionID("reason"): ["busy"],
      QuestionID("satisfaction"): ["4"], QuestionID("spend"): ["3000"], QuestionID("comment"): ["forged"],
    ]
    let answers = try Survey.branching.validateAnswers(draft).get()
    #expect(answers.map(\.questionID.rawValue) == ["frequency", "foods", "satisfaction", "spend"])
    // The other branch: its question is required, the daily one's is not asked.
    var rarely = draft
    rarely[frequency] = ["rarely"]
    rarely[QuestionID("reason")] = nil
    rarely[QuestionID("satisfaction")] = ["1"]
    rarely[QuestionID("comment")] = nil
    #expect(Survey.branching.validateAnswers(rarely) == .failure(AnswerErrors(byQuestion: [
      QuestionID("reason"): .required, QuestionID("comment"): .required,
    ])), "dissatisfied: the comment is asked")
    rarely[QuestionID("reason")] = ["busy"]
    rarely[QuestionID("comment")] = ["もっと早く"]
    #expect(try Survey.branching.validateAnswers(rarely).get().map(\.questionID.rawValue) == ["frequency", "reason", "satisfaction", "spend", "comment"])
  }

  @Test func pagesBreakBeforeAQuestionThatDependsOnThePageBeingFilled() {
    #expect(Survey.branching.pages.map { $0.map(\.id.rawValue) } == [["frequency"], ["foods", "reason", "satisfaction", "spend"], ["comment"]])
    #expect(Survey.breakfast.pages.count == 1, "a survey without conditions is one page")
  }

  @Test func aRespondentSeesOnlyThePagesAndQuestionsTheirAnswersCallFor() {
    let survey = Survey.branching
    let draft: AnswerDraft = [frequency: ["rarely"], QuestionID("satisfaction"): ["5"], QuestionID("spend"): ["100"]]
    let second = survey.page(from: 1, draft: draft, screening: [], order: nil)
    #expect(second.index == 1)
    #expect(second.questions.map(\.id.rawValue) == ["reason", "satisfaction", "spend"])
    #expect(survey.page(after: 1, draft: draft, screening: []) == nil, "satisfied and thrifty: no comment page")
    var unhappy = draft
    unhappy[QuestionID("satisfaction")] = ["1"]
    #expect(survey.page(after: 1, draft: unhappy, screening: []) == 2)
    #expect(survey.page(before: 2, draft: unhappy, screening: []) == 1)
  }

  @Test func publishingRefusesConditionsOnLaterQuestionsGoneOptionsAndTheUnreachable() {
    let base = Survey.branching
    func errors(_ change: (inout [SurveyQuestion]) -> Void) -> [LogicError] {
      var questions = base.questions
      change(&questions)
      return base.with(questions).logicErrors()
    }
    #expect(base.logicErrors().isEmpty)
    let later = errors { $0[0] = SurveyQuestion(id: frequency, text: "？", kind: $0[0].kind, condition: DisplayCondition(.all, [Rule(question: QuestionID("spend"), min: 1)])) }
    #expect(later == [.notEarlier(frequency, refersTo: QuestionID("spend"))])
    let gone = errors { $0[1] = SurveyQuestion(id: QuestionID("foods"), text: "？", kind: $0[1].kind, condition: DisplayCondition(.all, [Rule(question: frequency, choices: [ChoiceID("weekly")])])) }
    #expect(gone == [.unknownOption(QuestionID("foods"), refersTo: frequency)])
    let outside = errors { $0[5] = SurveyQuestion(id: QuestionID("comment"), text: "？", kind: $0[5].kind, condition: DisplayCondition(.all, [Rule(question: QuestionID("satisfaction"), min: 6)])) }
    #expect(outside == [.untestable(QuestionID("comment"), refersTo: QuestionID("satisfaction"))])
    let text = errors { $0.append(SurveyQuestion(id: QuestionID("more"), text: "？", kind: .rating, condition: DisplayCondition(.all, [Rule(question: QuestionID("comment"), choices: [ChoiceID("x")])]))) }
    #expect(text == [.untestable(QuestionID("more"), refersTo: QuestionID("comment"))])
    // Daily and rarely at once: never; and what only it leads to, never either.
    let both = DisplayCondition(.all, [Rule(question: frequency, choices: [ChoiceID("daily")]), Rule(question: frequency, choices: [ChoiceID("rarely")])])
    let never = errors {
      $0[1] = SurveyQuestion(id: QuestionID("foods"), text: "？", kind: $0[1].kind, condition: both)
      $0.append(SurveyQuestion(id: QuestionID("after"), text: "？", kind: .rating, condition: DisplayCondition(.all, [Rule(question: QuestionID("foods"), choices: [ChoiceID("rice")])])))
    }
    #expect(never == [.unreachable(QuestionID("foods")), .unreachable(QuestionID("after"))])
    let noRange = errors { $0.append(SurveyQuestion(id: QuestionID("after"), text: "？", kind: .rating, condition: DisplayCondition(.all, [Rule(question: QuestionID("spend"), min: 10, max: 20), Rule(question: QuestionID("spend"), min: 30)]))) }
    #expect(noRange == [.unreachable(QuestionID("after"))])
    // OR: one way in is enough.
    let either = errors { $0.append(SurveyQuestion(id: QuestionID("after"), text: "？", kind: .rating, condition: DisplayCondition(.any, [Rule(question: QuestionID("foods"), choices: [ChoiceID("rice")]), Rule(question: QuestionID("spend"), min: 0)]))) }
    #expect(either.isEmpty)
    #expect(LogicError.unreachable(QuestionID("foods")).message(naming: base.code) == "Q2はどの回答でも表示されません。表示条件を見直してください")
  }

  /// A rule on a screening single choice's option that screens out can never show a question of
  /// the survey's own: those who picked it never reach them.
  @Test func aConditionOnAnOptionThatScreensOutIsUnreachable() {
    let coffee = Survey.screenedCoffee
    func survey(_ choices: [ChoiceID]) -> Survey {
      coffee.with([
        SurveyQuestion(id: QuestionID("how"), text: "？", kind: .rating, condition: DisplayCondition(.all, [Rule(question: QuestionID("drinks"), choices: choices)])),
      ], screening: coffee.screening)
    }
    #expect(survey([ChoiceID("never")]).logicErrors() == [.unreachable(QuestionID("how"))])
    #expect(survey([ChoiceID("daily")]).logicErrors().isEmpty)
    #expect(survey([ChoiceID("never"), ChoiceID("sometimes")]).logicErrors().isEmpty)
  }

  @Test func aRespondentKeepsTheirOrderAndOthersGetTheirsWithTheLastResortsLast() throws {
    let survey = Survey.branching
    let order = try #require(survey.order(for: "r-1"))
    #expect(survey.order(for: "r-1") == order, "the same on every reload")
    let orders = Set((0..<20).compactMap { survey.order(for: "r-\($0)")?.choices[QuestionID("reason")] })
    #expect(orders.count > 5, "respondents get orders of their own")
    #expect(orders.allSatisfy { $0.last == ChoiceID("other") && Set($0).count == 5 }, "「その他」 stays last")
    #expect(order.questions == nil, "questions in the survey's order unless asked")
    #expect(Survey.breakfast.order(for: "r-1") == nil, "nothing shuffles")
    // Questions shuffle within their pages: a page's conditions still follow from the ones before.
    let shuffled = survey.with(survey.questions, shufflesQuestions: true)
    let pages = Set((0..<20).compactMap { shuffled.order(for: "r-\($0)")?.questions })
    #expect(pages.count > 1)
    for questions in pages {
      #expect(questions.first == frequency && questions.last == QuestionID("comment"))
    }
    // What the page shows: the options in the respondent's order.
    let shown = survey.page(from: 1, draft: [frequency: ["rarely"]], screening: [], order: order)
    #expect(shown.questions.first?.choices.map(\.id) == order.choices[QuestionID("reason")])
  }

  @Test func aRespondentsCellFollowsTheirProfileAndScreening() throws {
    let cells = QuotaCells(dimensions: [.gender, .ageBand], cells: [
      .init(values: ["female", "20"], limit: 50), .init(values: ["female", "30"], limit: 50), .init(values: ["male", "20"], limit: 50),
    ])
    let cell = try #require(cells.cell(of: .hanako, at: noon, screening: []))
    #expect(cell.name == "female-20")
    #expect(cells.label(of: cell, in: .breakfast) == "女性 × 20代")
    #expect(cells.cell(of: .hanako, at: noon + days(365 * 4), screening: []) == .init(values: ["female", "30"], limit: 50), "by age at the moment")
    #expect(cells.cell(of: nil, at: noon, screening: []) == nil)
    #expect(cells.cell(of: Profile(birthYear: 1960, gender: .female, prefecture: .tokyo, occupation: .retired), at: noon, screening: []) == nil)
    let byAnswer = QuotaCells(dimensions: [.screening(QuestionID("drinks"))], cells: [.init(values: ["daily"], limit: 5)])
    #expect(byAnswer.cell(of: nil, at: noon, screening: [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("daily")))])?.name == "daily")
    #expect(byAnswer.label(of: byAnswer.cells[0], in: .screenedCoffee) == "毎日")
    #expect(Survey.screenedCoffee.with(Survey.screenedCoffee.questions, screening: Survey.screenedCoffee.screening, cells: byAnswer).logicErrors().isEmpty)
    let onOwn = QuotaCells(dimensions: [.screening(QuestionID("satisfaction"))], cells: [])
    #expect(Survey.screenedCoffee.with(Survey.screenedCoffee.questions, screening: Survey.screenedCoffee.screening, cells: onOwn).logicErrors() == [.cellQuestion(QuestionID("satisfaction"))])
  }

  /// Numbering a published version or closing a survey keeps all of it (its logic was dropped
  /// once, by a copy that listed the fields it knew).
  @Test func numberingAndClosingKeepEveryField() throws {
    let cells = QuotaCells(dimensions: [.gender], cells: [.init(values: ["female"], limit: 2)])
    let survey = Survey.branching.with(Survey.branching.questions, cells: cells, shufflesQuestions: true)
    for changed in [survey.numbered(3), survey.closed(at: noon)] {
      #expect(changed.cells == cells && changed.shufflesQuestions && changed.questions == survey.questions)
      var fields = try JSONSerialization.jsonObject(with: JSONEncoder().encode(changed)) as? [String: Any] ?? [:]
      var original = try JSONSerialization.jsonObject(with: JSONEncoder().encode(survey)) as? [String: Any] ?? [:]
      for key in ["version", "expiresAt"] { (fields[key], original[key]) = (nil, nil) }
      #expect(Set(fields.keys) == Set(original.keys), "every field kept")
    }
    #expect(survey.forEveryone.cells == nil && survey.forEveryone.targeting == nil && survey.forEveryone.shufflesQuestions)
  }

  /// A question whose kind changed between versions keeps every answer in the export: a single
  /// choice of the first version is the one pick of the multiple choice it became; a multiple
  /// choice of the first, in the single choice it became, its labels.
  @Test func anAnswerKeepsItsPlaceInTheExportWhenItsQuestionsKindChanged() {
    let options: [SurveyQuestion.Choice] = [.init(id: ChoiceID("a"), label: "りんご"), .init(id: ChoiceID("b"), label: "みかん")]
    let single = SurveyQuestion(id: QuestionID("fruit"), text: "果物は？", kind: .singleChoice(choices: options))
    let multiple = SurveyQuestion(id: QuestionID("fruit"), text: "果物は？", kind: .multipleChoice(choices: options, minPicks: 1, maxPicks: 2))
    func response(_ version: Int, _ value: SurveyAnswer.Value) -> SurveyResponse {
      SurveyResponse(
        surveyID: Survey.sweets.id, version: version, respondent: "r", outcome: .completed,
        answers: [SurveyAnswer(questionID: QuestionID("fruit"), value: value)], shownAt: nil, sentAt: noon, paid: 1
      )
    }
    let first = Survey.sweets.with([single]), second = Survey.sweets.with([multiple]).numbered(2)
    let becameMultiple = ResponseTable(survey: second, earlier: [first])
    let cells = becameMultiple.row(response(1, .choice(ChoiceID("b"))))
    #expect(Array(cells.suffix(2)) == [.number(0), .number(1)], "the single pick counts as picked")
    let becameSingle = ResponseTable(survey: first.numbered(3), earlier: [second])
    #expect(becameSingle.row(response(2, .choices([ChoiceID("a"), ChoiceID("b")]))).last == .text("りんご、みかん"))
  }

  /// A grid asked in the screening reads the screening's answer, in its own scale's labels, not a
  /// main question's of the same id (it read the main answers: blank, or the other question's rows).
  @Test func aScreeningGridsRowsReadTheScreeningsAnswer() {
    func grid(_ text: String, _ yes: String, _ no: String) -> SurveyQuestion {
      let scale: [SurveyQuestion.Choice] = [.init(id: ChoiceID("y"), label: yes), .init(id: ChoiceID("n"), label: no)]
      return SurveyQuestion(id: QuestionID("habits"), text: text, kind: .grid(rows: [.init(id: "run", label: "走る"), .init(id: "swim", label: "泳ぐ")], scale: scale))
    }
    let survey = Survey.sweets.with(
      [grid("今後したいことは？", "したい", "したくない")],
      screening: Screening(questions: [grid("普段することは？", "はい", "いいえ")], qualifying: [:], consolation: 1)
    )
    let table = ResponseTable(survey: survey)
    let response = SurveyResponse(
      surveyID: survey.id, version: survey.version, respondent: "r", outcome: .completed,
      answers: [SurveyAnswer(questionID: QuestionID("habits"), value: .grid([GridCell(row: "swim", choice: ChoiceID("y"))]))],
      screening: [SurveyAnswer(questionID: QuestionID("habits"), value: .grid([GridCell(row: "run", choice: ChoiceID("y")), GridCell(row: "swim", choice: ChoiceID("n"))]))],
      shownAt: nil, sentAt: noon, paid: 1
    )
    let cells = Dictionary(uniqueKeysWithValues: zip(table.columns.map { $0.code }, table.row(response)))
    let read: [ResponseTable.Cell?] = [cells["S1_1"], cells["S1_2"], cells["Q1_1"], cells["Q1_2"]]
    #expect(read == [.text("はい"), .text("いいえ"), .empty, .text("したい")])
  }

  @Test func aSurveyWhoseCellsAreAllInIsFull() {
    let cells = QuotaCells(dimensions: [.gender], cells: [.init(values: ["female"], limit: 2), .init(values: ["male"], limit: 1)])
    let survey = Survey.breakfast.with(Survey.breakfast.questions, cells: cells)
    #expect(survey.counting(taken: 0, cells: ["female": 2]).closure(at: noon) == nil)
    #expect(survey.counting(taken: 0, cells: ["female": 2]).isFull(cells.cells[0]))
    #expect(survey.counting(taken: 0, cells: ["female": 2, "male": 1]).closure(at: noon) == .full)
  }
}
