import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// A survey in pages (its conditions make them) and with quota cells, answered through the survey
/// feature: each request a store of its own, as the web layer makes one per request, with the
/// user's state carried from one to the next.
struct SurveyLogicFlowTests {
  let survey = Survey.branching
  let frequency = QuestionID("frequency")

  func store(
    _ intent: SurveyDetail.Page.Intent, survey: Survey? = nil, progress: UserProgress = UserProgress(), draft: SurveyDraft? = nil,
    quotas: QuotaClient = QuotaClient()
  ) -> TestStoreOf<SurveyDetail> {
    let id = (survey ?? self.survey).id
    return TestStore(initialState: SurveyDetail.State(progress: progress, draft: draft, page: SurveyDetail.Page(surveyID: id, intent: intent))) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.quotas = quotas
    }
  }

  /// The questions a page shows, as the feature makes them for the test's respondent.
  func shown(_ page: Int, _ draft: AnswerDraft) -> (index: Int, questions: [SurveyQuestion]) {
    survey.page(from: page, draft: draft, screening: [], order: survey.order(for: "respondent-\(survey.id.rawValue)"))
  }

  @Test func theFirstPageAsksOnlyWhatTheRestDependsOn() async {
    let store = store(.answer)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.page.pageCount = 3
      $0.page.questions = [.breakfastFrequency]
    }
  }

  /// Page by page: each page checked as it is sent, the next one the answers call for shown, the
  /// answers taken when the last is sent, the questions not shown without answers.
  @Test func eachPageLeadsToTheOneItsAnswersCallForAndTheLastIsPaid() async throws {
    // Page 1: rarely.
    let first = store(.submit([frequency: ["rarely"]], version: 1, page: 0))
    let afterFirst = SurveyDraft([frequency: ["rarely"]], of: survey, page: 1)
    await first.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.draft = afterFirst
      $0.page.pageMoved = true
      $0.page.pageIndex = 1
      $0.page.pageCount = 3
      $0.page.questions = self.shown(1, [self.frequency: ["rarely"]]).questions
    }
    #expect(first.state.page.questions.map(\.id.rawValue) == ["reason", "satisfaction", "spend"], "the daily eaters' question is not asked")
    // Page 2, sent with a mistake (and a forged answer to page 1's question): kept, its error shown.
    let mistaken: AnswerDraft = [QuestionID("satisfaction"): ["2"], QuestionID("spend"): ["たくさん"], frequency: ["daily"]]
    let second = store(.submit(mistaken, version: 1, page: 1), draft: afterFirst)
    // Every question of the page has an entry (the page was sent), the one not shown too.
    let kept: AnswerDraft = [frequency: ["rarely"], QuestionID("foods"): [], QuestionID("reason"): [], QuestionID("satisfaction"): ["2"], QuestionID("spend"): ["たくさん"]]
    await second.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.draft = SurveyDraft(kept, of: self.survey, page: 1)
      $0.page.pageIndex = 1
      $0.page.pageCount = 3
      $0.page.questions = self.shown(1, kept).questions
      $0.page.draft = kept
      $0.page.errors = [QuestionID("reason"): .required, QuestionID("spend"): .notANumber]
    }
    // Sent right: dissatisfied, so the comment page comes.
    let right: AnswerDraft = [QuestionID("reason"): ["busy"], QuestionID("satisfaction"): ["2"], QuestionID("spend"): ["3,000"]]
    let third = store(.submit(right, version: 1, page: 1), draft: second.state.draft)
    let all = right.merging([frequency: ["rarely"], QuestionID("foods"): []]) { $1 }
    await third.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.draft = SurveyDraft(all, of: self.survey, page: 2)
      $0.page.pageMoved = true
      $0.page.pageIndex = 2
      $0.page.pageCount = 3
      $0.page.questions = self.shown(2, all).questions
    }
    #expect(third.state.page.questions.map(\.id.rawValue) == ["comment"])
    // Back a page: the comment typed is kept, unchecked.
    let back = store(.back([QuestionID("comment"): ["途中"]], version: 1, page: 2), draft: third.state.draft)
    let withComment = all.merging([QuestionID("comment"): ["途中"]]) { $1 }
    await back.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.draft = SurveyDraft(withComment, of: self.survey, page: 1)
      $0.page.pageMoved = true
      $0.page.pageIndex = 1
      $0.page.pageCount = 3
      $0.page.questions = self.shown(1, withComment).questions
    }
    // The last page: the answers taken, without the comment a satisfied member is no longer asked for.
    let last = store(.submit([QuestionID("comment"): ["朝は忙しい"]], version: 1, page: 2), draft: SurveyDraft(all, of: survey, page: 2))
    let answers = try survey.validateAnswers(all.merging([QuestionID("comment"): ["朝は忙しい"]]) { $1 }).get()
    #expect(answers.map(\.questionID.rawValue) == ["frequency", "reason", "satisfaction", "spend", "comment"])
    await last.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.page.pageIndex = 2
      $0.page.pageCount = 3
      $0.page.questions = self.shown(2, all).questions
      $0.draft = nil
      $0.progress.recordAnswer(to: self.survey, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await last.receive(.delegate(.answered(survey, paid: true)))
  }

  /// A page sent ahead of those before it (a forged page number) goes back to the first one left
  /// unanswered, with its errors.
  @Test func aPageSentAheadOfTheOnesBeforeItLeadsBackToThem() async {
    let store = store(.submit([QuestionID("satisfaction"): ["4"]], version: 1, page: 1))
    let kept: AnswerDraft = [frequency: [], QuestionID("foods"): [], QuestionID("reason"): [], QuestionID("satisfaction"): ["4"], QuestionID("spend"): []]
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = self.survey
      $0.draft = SurveyDraft(kept, of: self.survey)
      $0.page.pageCount = 3
      $0.page.questions = [.breakfastFrequency]
      $0.page.draft = kept
      $0.page.errors = [self.frequency: .required]
    }
  }

  /// A survey of one page whose question depends on the screening's answer: the page shows only
  /// what the answer calls for (the page is the feature's, though nothing splits it).
  @Test func aConditionOnTheScreeningsAnswerShapesTheOnePage() async {
    let coffee = Survey.screenedCoffee
    let asked = SurveyQuestion(
      id: QuestionID("why"), text: "ときどきなのはなぜ？", kind: .freeText(required: true, maxLength: 50),
      condition: DisplayCondition(.all, [Rule(question: QuestionID("drinks"), choices: [ChoiceID("sometimes")])])
    )
    let survey = coffee.with([.satisfaction, asked], screening: coffee.screening)
    #expect(survey.pages.count == 1)
    var daily = UserProgress()
    daily.qualify(for: survey.id, at: noon - 60, with: [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("daily")))])
    let store = store(.answer, survey: survey, progress: daily)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.page.questions = [.satisfaction]
    }
  }

  /// 女性 × 20代 and 男性 × 20代, one place each: the member's cell is claimed with the answer; a
  /// member whose cell is in finds the survey closed; one who fits no cell is not asked.
  @Test func aMemberTakesAPlaceInTheirCellOrFindsItFull() async throws {
    let cells = QuotaCells(dimensions: [.gender, .ageBand], cells: [.init(values: ["female", "20"], limit: 1), .init(values: ["male", "20"], limit: 1)])
    let survey = Survey.sweets.with(Survey.sweets.questions, cells: cells)
    var hanako = UserProgress()
    hanako.saveProfile(.hanako, id: TransactionID(UUID(9)), at: noon - 60)
    let claimed = LockIsolated<[String?]>([])
    let store = store(.submit(ratingAnswer), survey: survey, progress: hanako, quotas: QuotaClient(claim: { _, places, cell in
      #expect(places == nil, "no overall quota")
      claimed.withValue { $0.append(cell?.name) }
      return true
    }))
    await store.send(.surveyLoaded(.success(survey))) { $0.page.survey = survey }
    let answers = [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))]
    await store.receive(.placeClaimed(answers, .success(true))) {
      $0.progress.recordAnswer(to: survey, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await store.receive(.delegate(.answered(survey, paid: true)))
    #expect(claimed.value == ["female-20"])
    // Her cell counted full: closed to the next woman in her twenties, open to a man.
    let full = survey.counting(taken: 0, cells: ["female-20": 1])
    let next = self.store(.answer, survey: full, progress: hanako.withoutAnswers)
    await next.send(.surveyLoaded(.success(full))) {
      $0.page.survey = full
      $0.page.closed = .full
    }
    // Sixty: no cell is hers.
    var older = UserProgress()
    older.saveProfile(Profile(birthYear: 1966, gender: .female, prefecture: .osaka, occupation: .retired), id: TransactionID(UUID(9)), at: noon - 60)
    let outside = self.store(.answer, survey: full, progress: older)
    await outside.send(.surveyLoaded(.success(full))) {
      $0.page.survey = full
      $0.page.ineligible = .outsideTarget
    }
  }

  /// A cell made of a screening answer: a member whose cell is in is screened out at the
  /// screening, with its consolation, and never reaches the questions.
  @Test func aFullCellScreensOutWithTheConsolation() async {
    let cells = QuotaCells(dimensions: [.screening(QuestionID("drinks"))], cells: [.init(values: ["daily"], limit: 1), .init(values: ["sometimes"], limit: 5)])
    let survey = Survey.screenedCoffee.with(Survey.screenedCoffee.questions, screening: Survey.screenedCoffee.screening, cells: cells)
      .counting(taken: 0, cells: ["daily": 1])
    let drinks = [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("daily")))]
    let store = store(.screen([QuestionID("drinks"): ["daily"]]), survey: survey)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.progress.screenOut(of: survey, consolation: 3, with: drinks, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.screenedOut(survey, consolation: 3)))
    // Sometimes: their cell has room, on to the questions.
    let other = self.store(.screen([QuestionID("drinks"): ["sometimes"]]), survey: survey)
    await other.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.progress.qualify(for: survey.id, at: noon, with: [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("sometimes")))])
    }
    await other.receive(.delegate(.qualified(survey)))
  }
}

extension UserProgress {
  /// The same member before any survey was answered (their profile kept).
  var withoutAnswers: UserProgress {
    var progress = UserProgress()
    if let profile { progress.saveProfile(profile, id: TransactionID(UUID(9)), at: noon - 60) }
    return progress
  }
}
