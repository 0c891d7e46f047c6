import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct SurveyDetailTests {
  func makeStore(survey: Survey? = nil, progress: UserProgress = UserProgress(), draft: SurveyDraft? = nil) -> TestStoreOf<SurveyDetail> {
    var page = SurveyDetail.Page(surveyID: survey?.id ?? Survey.breakfast.id)
    page.survey = survey
    return TestStore(initialState: SurveyDetail.State(progress: progress, draft: draft, page: page)) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
    }
  }

  /// Targeting by the profile as it is when the survey is loaded: to open it, and again to answer.
  @Test func aSurveyIsOpenOnlyToTheUsersItTargets() async {
    func loaded(_ profile: Profile?, intent: SurveyDetail.Page.Intent = .answer) async -> TestStoreOf<SurveyDetail> {
      var progress = UserProgress()
      if let profile { progress.saveProfile(profile, id: TransactionID(UUID(9)), at: noon - 60) }
      return store(Survey.twenties.id, intent, progress: progress)
    }
    let guest = await loaded(nil)
    await guest.send(.surveyLoaded(.success(.twenties))) {
      $0.page.survey = .twenties
      $0.page.ineligible = .needsProfile
    }
    // Thirty this year: one year past the range.
    let thirty = await loaded(Profile(birthYear: 1996, gender: .female, prefecture: .tokyo, occupation: .student), intent: .submit(ratingAnswer))
    await thirty.send(.surveyLoaded(.success(.twenties))) {
      $0.page.survey = .twenties
      $0.page.ineligible = .outsideTarget
    }
    #expect(thirty.state.progress.ledger.balance == Profile.bonus, "nothing paid for the answers")
    let hanako = await loaded(.hanako, intent: .submit(ratingAnswer))
    await hanako.send(.surveyLoaded(.success(.twenties))) {
      $0.page.survey = .twenties
      $0.progress.recordAnswer(
        to: .twenties, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))],
        id: TransactionID(UUID(0)), at: noon, on: today
      )
    }
    await hanako.receive(.delegate(.answered(.twenties, paid: true)))
  }

  /// Answers from the page of the survey's first version, sent after its second was published:
  /// none is taken, nothing is paid, the answers are kept for its page as it is now. From the
  /// page of the second, they are paid, and the answer keeps the version it answered.
  @Test func answersFromAnEarlierVersionsPageAreSentBackUnpaid() async {
    let second = Survey.sweets.numbered(2)
    let early = store(second.id, .submit(ratingAnswer, version: 1))
    await early.send(.surveyLoaded(.success(second))) {
      $0.page.survey = second
      $0.draft = SurveyDraft(ratingAnswer, of: second)
      $0.page.draft = ratingAnswer
    }
    await early.receive(.delegate(.updated(second)))
    #expect(early.state.progress.ledger.balance == .zero)
    let current = store(second.id, .submit(ratingAnswer, version: 2))
    await current.send(.surveyLoaded(.success(second))) {
      $0.page.survey = second
      $0.progress.recordAnswer(
        to: second, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))],
        id: TransactionID(UUID(0)), at: noon, on: today
      )
    }
    await current.receive(.delegate(.answered(second, paid: true)))
    #expect(current.state.progress.answer(to: second.id)?.surveyVersion == 2)
  }

  /// A store that has not loaded the survey `id` yet, asked for it with `intent` at `date`.
  func store(
    _ id: SurveyID, _ intent: SurveyDetail.Page.Intent, at date: Date = noon, progress: UserProgress = UserProgress(), draft: SurveyDraft? = nil
  ) -> TestStoreOf<SurveyDetail> {
    TestStore(initialState: SurveyDetail.State(progress: progress, draft: draft, page: SurveyDetail.Page(surveyID: id, intent: intent))) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = date
      $0.uuid = .incrementing
      $0.calendar = .tokyo
    }
  }

  func screening(intent: SurveyDetail.Page.Intent, progress: UserProgress = UserProgress()) -> TestStoreOf<SurveyDetail> {
    store(Survey.screenedCoffee.id, intent, progress: progress)
  }

  static let never: AnswerDraft = [QuestionID("drinks"): ["never"]]
  static let daily: AnswerDraft = [QuestionID("drinks"): ["daily"]]

  /// Screened out: the consolation once, the screening's answers kept; sent again (Refresh, Back,
  /// a second tab) it is not screened or paid again, whatever it says.
  @Test func screeningOutPaysTheConsolationOnce() async {
    let store = screening(intent: .screen(Self.never))
    await store.send(.surveyLoaded(.success(.screenedCoffee))) {
      $0.page.survey = .screenedCoffee
      $0.progress.screenOut(
        of: .screenedCoffee, consolation: 3, with: [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("never")))],
        id: TransactionID(UUID(0)), at: noon
      )
    }
    await store.receive(.delegate(.screenedOut(.screenedCoffee, consolation: 3)))
    #expect(store.state.progress.ledger.balance == 3)
    #expect(store.state.progress.completedCount == 0)

    let again = screening(intent: .screen(Self.daily), progress: store.state.progress)
    await again.send(.surveyLoaded(.success(.screenedCoffee))) { $0.page.survey = .screenedCoffee }
    #expect(again.state.progress == store.state.progress)
    // Its own questions sent anyway: the survey ended at its screening, nothing is paid.
    let answers = screening(intent: .submit(ratingAnswer), progress: store.state.progress)
    await answers.send(.surveyLoaded(.success(.screenedCoffee))) { $0.page.survey = .screenedCoffee }
    await answers.receive(.delegate(.answered(.screenedCoffee, paid: false)))
    #expect(answers.state.progress == store.state.progress)
  }

  /// Qualified: its own questions open, paid as any survey's; the screening sent again changes
  /// nothing.
  @Test func qualifyingOpensTheSurveysQuestionsAndScreeningAgainChangesNothing() async {
    let store = screening(intent: .screen(Self.daily))
    await store.send(.surveyLoaded(.success(.screenedCoffee))) {
      $0.page.survey = .screenedCoffee
      $0.progress.qualify(
        for: Survey.screenedCoffee.id, at: noon, with: [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("daily")))]
      )
    }
    await store.receive(.delegate(.qualified(.screenedCoffee)))
    #expect(!store.state.isScreening)
    #expect(store.state.progress.screeningAnswers[Survey.screenedCoffee.id]?.count == 1, "kept for the survey's response")

    let again = screening(intent: .screen(Self.never), progress: store.state.progress)
    await again.send(.surveyLoaded(.success(.screenedCoffee))) { $0.page.survey = .screenedCoffee }
    #expect(again.state.progress.ledger.balance == 0)

    let answers = screening(intent: .submit(ratingAnswer), progress: store.state.progress)
    await answers.send(.surveyLoaded(.success(.screenedCoffee))) {
      $0.page.survey = .screenedCoffee
      $0.progress.recordAnswer(
        to: .screenedCoffee, with: [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))],
        id: TransactionID(UUID(0)), at: noon, on: today
      )
    }
    await answers.receive(.delegate(.answered(.screenedCoffee, paid: true)))
    #expect(answers.state.progress.qualified.isEmpty)
    #expect(answers.state.progress.ledger.balance == 50)
  }

  @Test func theSurveysQuestionsBeforeItsScreeningAreRefused() async {
    let store = screening(intent: .submit(ratingAnswer))
    await store.send(.surveyLoaded(.success(.screenedCoffee))) {
      $0.page.survey = .screenedCoffee
      $0.page.screeningFirst = true
    }
    #expect(store.state.progress == UserProgress())
  }

  @Test func anUnansweredScreeningIsKeptWithItsError() async {
    let store = screening(intent: .screen([:]))
    await store.send(.surveyLoaded(.success(.screenedCoffee))) {
      $0.page.survey = .screenedCoffee
      $0.draft = SurveyDraft([:], of: .screenedCoffee)
      $0.page.errors = [QuestionID("drinks"): .required]
    }
    #expect(store.state.isScreening)
  }

  func careful(_ intent: SurveyDetail.Page.Intent, at date: Date, progress: UserProgress = UserProgress(), draft: SurveyDraft? = nil) -> TestStoreOf<SurveyDetail> {
    store(AnswerQualityTests.careful.id, intent, at: date, progress: progress, draft: draft)
  }

  /// Straight-lined, inattentive and fast: sent back once with the answers kept; still two
  /// checks failing after that, recorded invalid and unpaid, for good.
  @Test func carelessAnswersAreSentBackOnceThenRecordedInvalid() async {
    let survey = AnswerQualityTests.careful
    let careless: AnswerDraft = [
      QuestionID("g"): (1...5).map { "r\($0):c1" }, QuestionID("a"): ["c1"], QuestionID("satisfaction"): ["3"],
    ]
    let opened = careful(.answer, at: noon)
    await opened.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.progress.open(survey.id, at: noon)
    }
    let first = careful(.submit(careless), at: noon + 1, progress: opened.state.progress)
    await first.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.draft = SurveyDraft(careless, of: survey)
      $0.page.draft = careless
      $0.progress.requestReview(of: survey.id)
    }
    await first.receive(.delegate(.reviewRequested(survey)))
    #expect(first.state.progress.ledger.balance == 0)

    var reviewed = careless
    reviewed[QuestionID("g")] = ["r1:c1", "r2:c2", "r3:c1", "r4:c2", "r5:c3"]  // no longer straight-lined
    let second = careful(.submit(reviewed), at: noon + 2, progress: first.state.progress, draft: first.state.draft)
    await second.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.draft = nil
      guard case let .success(answers) = survey.validateAnswers(reviewed) else { return }
      $0.progress.recordInvalid(to: survey, with: answers, at: noon + 2)
    }
    await second.receive(.delegate(.answerInvalid(survey)))
    #expect(second.state.progress.ledger.balance == 0)
    #expect(second.state.progress.answeredCount == 1 && second.state.progress.completedCount == 0)

    // Sent once more, carefully this time: it was answered, nothing more is paid.
    let again = careful(.submit(reviewed), at: noon + 60, progress: second.state.progress)
    await again.send(.surveyLoaded(.success(survey))) { $0.page.survey = survey }
    await again.receive(.delegate(.answered(survey, paid: false)))
    #expect(again.state.progress.ledger.balance == 0)
  }

  /// After a review, one check still failing (a little fast) is paid.
  @Test func afterAReviewOneCheckStillFailingIsPaid() async {
    let survey = AnswerQualityTests.careful
    var progress = UserProgress()
    progress.open(survey.id, at: noon)
    progress.requestReview(of: survey.id)
    let answers: AnswerDraft = [QuestionID("g"): ["r1:c1", "r2:c2", "r3:c1", "r4:c2", "r5:c3"], QuestionID("a"): ["c2"], QuestionID("satisfaction"): ["4"]]
    let store = careful(.submit(answers), at: noon + 19, progress: progress)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      guard case let .success(valid) = survey.validateAnswers(answers) else { return }
      $0.progress.recordAnswer(to: survey, with: valid, id: TransactionID(UUID(0)), at: noon + 19, on: today)
    }
    await store.receive(.delegate(.answered(survey, paid: true)))
    #expect(store.state.progress.reviewRequested.isEmpty && store.state.progress.opened.isEmpty)
  }

  @Test func showsTheLoadedSurvey() async {
    let store = makeStore()
    await store.send(.surveyLoaded(.success(.breakfast))) { $0.page.survey = .breakfast }
  }

  @Test func anUnknownOrUnpublishedSurveyIsNotFound() async {
    let unknown = makeStore()
    await unknown.send(.surveyLoaded(.success(nil))) { $0.page.notFound = true }
    let early = makeStore()
    await early.send(.surveyLoaded(.success(.fixture(id: "soon", publishedAt: noon + 1)))) { $0.page.notFound = true }
  }

  @Test func aSurveyPastItsDeadlineIsClosed() async {
    let store = makeStore()
    await store.send(.surveyLoaded(.success(.expired))) {
      $0.page.survey = .expired
      $0.page.closed = .deadlinePassed
    }
  }

  @Test func aCatalogFailureIsShown() async {
    let store = makeStore()
    await store.send(.surveyLoaded(.failure(CatalogError(URLError(.timedOut))))) { $0.page.loadFailed = true }
  }

  @Test func invalidAnswersKeepTheDraftAndSayWhy() async {
    let store = makeStore(survey: .breakfast)
    let draft: AnswerDraft = [QuestionID("frequency"): ["daily"], QuestionID("satisfaction"): ["9"]]
    await store.send(.submitButtonTapped(draft.merging([QuestionID("forged"): ["x"]]) { $1 })) {
      $0.draft = SurveyDraft(draft, of: .breakfast)
      $0.page.draft = draft
      $0.page.errors = [QuestionID("foods"): .required, QuestionID("satisfaction"): .invalidRating]
    }
    #expect(store.state.draft?.answers == draft, "only the survey's questions are kept")
    #expect(store.state.progress == UserProgress())
  }

  @Test func theSurveysPageShowsItsKeptDraftWithItsErrors() async {
    let draft: AnswerDraft = [QuestionID("frequency"): ["daily"]]
    let kept = SurveyDraft(draft, of: .breakfast)
    let store = TestStore(initialState: SurveyDetail.State(draft: kept, page: SurveyDetail.Page(surveyID: Survey.breakfast.id))) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.surveyLoaded(.success(.breakfast))) {
      $0.page.survey = .breakfast
      $0.page.draft = draft
      $0.page.errors = [QuestionID("foods"): .required, QuestionID("satisfaction"): .required]
    }
  }

  @Test func anotherSurveysDraftIsNotShown() async {
    let kept = SurveyDraft([QuestionID("satisfaction"): ["9"]], of: .sweets)
    let store = TestStore(initialState: SurveyDetail.State(draft: kept, page: SurveyDetail.Page(surveyID: Survey.breakfast.id))) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.surveyLoaded(.success(.breakfast))) { $0.page.survey = .breakfast }
  }

  @Test func answeringTheSurveyDropsItsDraft() async throws {
    let store = makeStore(survey: .breakfast, draft: SurveyDraft([QuestionID("frequency"): ["daily"]], of: .breakfast))
    let answers = try Survey.breakfast.validateAnswers(breakfastAnswers).get()
    await store.send(.submitButtonTapped(breakfastAnswers)) {
      $0.draft = nil
      $0.progress.recordAnswer(to: .breakfast, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await store.receive(.delegate(.answered(.breakfast, paid: true)))
  }

  @Test func validAnswersPayTheRewardOnce() async throws {
    let store = makeStore(survey: .breakfast)
    let answers = try Survey.breakfast.validateAnswers(breakfastAnswers).get()
    await store.send(.submitButtonTapped(breakfastAnswers)) {
      $0.progress.recordAnswer(to: .breakfast, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await store.receive(.delegate(.answered(.breakfast, paid: true)))
    #expect(store.state.progress.ledger.balance == 40)
    #expect(store.state.answered?.answers == answers)

    await store.send(.submitButtonTapped(breakfastAnswers))
    await store.receive(.delegate(.answered(.breakfast, paid: false)))
    #expect(store.state.progress.ledger.balance == 40)
    #expect(store.state.progress.ledger.count == 1)
  }

  @Test func answersSentWithTheRequestAreSubmittedOnceTheSurveyIsLoaded() async throws {
    let page = SurveyDetail.Page(surveyID: Survey.breakfast.id, intent: .submit(breakfastAnswers))
    let store = TestStore(initialState: SurveyDetail.State(page: page)) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
    }
    let answers = try Survey.breakfast.validateAnswers(breakfastAnswers).get()
    await store.send(.surveyLoaded(.success(.breakfast))) {
      $0.page.survey = .breakfast
      $0.progress.recordAnswer(to: .breakfast, with: answers, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await store.receive(.delegate(.answered(.breakfast, paid: true)))
    #expect(store.state.answered?.answers == answers)
  }

  @Test func answersToASurveyThatTurnsOutClosedAreNotTaken() async {
    let store = TestStore(
      initialState: SurveyDetail.State(page: SurveyDetail.Page(surveyID: Survey.expired.id, intent: .submit(ratingAnswer)))
    ) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.surveyLoaded(.success(.expired))) {
      $0.page.survey = .expired
      $0.page.closed = .deadlinePassed
    }
    #expect(store.state.progress == UserProgress())
  }

  @Test func aSubmissionBeforeTheSurveyIsLoadedChangesNothing() async {
    let store = makeStore()
    await store.send(.submitButtonTapped(breakfastAnswers))
  }
}
