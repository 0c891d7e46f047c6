import CasePaths
import Composable
import Dependencies
import Foundation

/// One survey with its question form: answers are checked, and a valid, first submission pays the
/// reward, once it has a place in the survey's quota (when it has one). A survey that closed
/// (full, or past its deadline) takes no answers; a user who had passed its screening is paid its
/// consolation.
public struct SurveyDetail: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The user's refused answers, of this survey or another, kept until that survey is answered.
    public var draft: SurveyDraft?
    public var page: Page

    public init(progress: UserProgress = UserProgress(), draft: SurveyDraft? = nil, page: Page) {
      self.progress = progress
      self.draft = draft
      self.page = page
    }

    /// When this user answered the survey, if they did.
    public var answered: UserProgress.AnsweredSurvey? { progress.answer(to: page.surveyID) }

    /// Whether the survey asks its screening next: it has one, and this user has neither passed
    /// it nor answered the survey.
    public var isScreening: Bool {
      page.survey?.screening != nil && progress.qualified[page.surveyID] == nil && answered == nil
    }
  }

  /// What the survey page shows; not saved.
  public struct Page: Equatable, Sendable {
    /// What the user asked of the survey: decides where they go once it is loaded.
    public enum Intent: Equatable, Sendable {
      /// Its page, to answer it.
      case answer
      /// The page that shows what answering it paid.
      case seeCompletion
      /// To submit these answers, sent from the page of the survey's `version` (`nil`: unsaid):
      /// those of its page `page` of a survey in pages (`nil`: the whole survey's).
      case submit(AnswerDraft, version: Int? = nil, page: Int? = nil)
      /// To go back a page, keeping these answers of page `page` unchecked.
      case back(AnswerDraft, version: Int? = nil, page: Int)
      /// To submit these answers to its screening (from the page of `version`, as above).
      case screen(AnswerDraft, version: Int? = nil)
      /// The page that shows a screening that did not qualify.
      case seeScreeningResult
    }

    public let surveyID: SurveyID
    public var intent: Intent
    public var survey: Survey?
    /// The catalog has no published survey with this id.
    public var notFound = false
    /// Why the survey takes no more answers, when it does not: the page of a user who has not
    /// answered it says so.
    public var closed: Survey.Closure?
    /// The survey is not for this user (`nil`: it is, or they answered it already).
    public var ineligible: Eligibility?
    /// Its own questions were sent before its screening was passed: refused.
    public var screeningFirst = false
    public var loadFailed = false
    /// The refused answers shown again, with their errors.
    public var draft: AnswerDraft = [:]
    public var errors: [QuestionID: AnswerError] = [:]
    /// The page of its own questions shown (`Survey.pages`), of `pageCount`.
    public var pageIndex = 0
    public var pageCount = 1
    /// That page's questions shown to this user: those its conditions call for, in the user's
    /// order, with their options as the user sees them; empty for a survey of one page in its
    /// own order, whose page shows its questions as they are.
    public var questions: [SurveyQuestion] = []
    /// A page was sent and the next one is to be answered.
    public var pageMoved = false

    public init(surveyID: SurveyID, intent: Intent = .answer) {
      self.surveyID = surveyID
      self.intent = intent
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case surveyLoaded(Result<Survey?, CatalogError>)
    case submitButtonTapped(AnswerDraft)
    /// Whether valid, careful answers got a place in the survey's quota.
    case placeClaimed([SurveyAnswer], Result<Bool, QuotaError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      /// Valid answers were sent; `paid` is false when the survey had been answered before.
      case answered(Survey, paid: Bool)
      /// The screening qualified: the survey's own questions are next.
      case qualified(Survey)
      /// The screening did not qualify: the survey ends, with its consolation paid.
      case screenedOut(Survey, consolation: PointAmount)
      /// The answers look careless: sent back once, to be reviewed, unpaid.
      case reviewRequested(Survey)
      /// Still careless after the review: recorded, unpaid.
      case answerInvalid(Survey)
      /// The answers came from the page of an earlier version of the survey: not taken, kept to
      /// be sent again from its page as it is now.
      case updated(Survey)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.calendar) var calendar
  @Dependency(\.quotas) var quotas
  @Dependency(\.respondents) var respondents

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .surveyLoaded(.success(survey)):
        guard let survey, survey.isPublished(at: now) else {
          state.page.notFound = true
          return .none
        }
        state.page.survey = survey
        state.page.closed = survey.closure(at: now)
        if state.answered == nil, let closure = state.page.closed {
          close(survey, closure, state: &state)
          return .none
        }
        // Targeting goes by the profile as it is now, the moment of answering included.
        let eligibility = survey.eligibility(of: state.progress.profile, at: now)
        if eligibility != .eligible, state.answered == nil {
          state.page.ineligible = eligibility
          return .none
        }
        if state.answered == nil, !state.isScreening, let cell = cell(of: survey, state: state), survey.isFull(cell) {
          // Their quota cell is in: closed to them (with the consolation of a screening passed).
          close(survey, .full, state: &state)
          return .none
        }
        present(survey, state: &state)
        switch state.page.intent {
        case .answer:
          if let kept = state.draft, kept.surveyID == survey.id {
            show(kept.answers, of: survey, state: &state)
          }
          // Its own questions are shown: how fast they are answered counts from now (for a
          // survey that sets a minimum time).
          if !state.isScreening, survey.quality != nil { state.progress.open(survey.id, at: now) }
          return .none
        case .seeCompletion, .seeScreeningResult:
          return .none
        case let .submit(draft, version, page):
          if let sentBack = sendBackIfUpdated(draft, version: version, state: &state) { return sentBack }
          return submit(draft, page: page, state: &state)
        case let .back(draft, version, page):
          if let sentBack = sendBackIfUpdated(draft, version: version, state: &state) { return sentBack }
          back(draft, page: page, state: &state)
          return .none
        case let .screen(draft, version):
          if let sentBack = sendBackIfUpdated(draft, version: version, state: &state) { return sentBack }
          return screen(draft, state: &state)
        }
      case .surveyLoaded(.failure):
        state.page.loadFailed = true
        return .none
      case let .submitButtonTapped(draft):
        return submit(draft, page: nil, state: &state)
      case let .placeClaimed(answers, .success(true)):
        guard let survey = state.page.survey else { return .none }
        return record(answers, to: survey, state: &state)
      case .placeClaimed(_, .success(false)):
        guard let survey = state.page.survey else { return .none }
        close(survey, .full, state: &state)  // nothing taken, nothing paid for the answers
        return .none
      case .placeClaimed(_, .failure):
        state.page.loadFailed = true  // nothing recorded: the answers can be sent again
        return .none
      case .delegate:
        return .none
      }
    }
  }

  /// Loads the survey a page shows.
  public static func load(_ id: SurveyID) -> Effect<Action> {
    .run { send in
      @Dependency(\.surveyClient) var surveyClient
      do {
        await send(.surveyLoaded(.success(try await surveyClient.fetch(id))))
      } catch {
        await send(.surveyLoaded(.failure(CatalogError(error))))
      }
    }
  }

  /// Refused answers on the survey's page, with why each was refused (none, if the survey has
  /// changed since in a way that makes them valid): its screening's while it asks that.
  private func show(_ draft: AnswerDraft, of survey: Survey, state: inout State) {
    state.page.draft = draft
    let checked = if state.isScreening, let screening = survey.screening {
      screening.verdict(on: draft).map { _ in () }
    } else {
      survey.validateAnswers(draft, screening: state.progress.screeningAnswers[survey.id] ?? []).map { _ in () }
    }
    if case let .failure(errors) = checked {
      // In a survey of pages, those of the page shown, once sent (a page not sent yet has no
      // entries in the draft, and no errors).
      let pages = survey.pages
      let onPage = Set(pages[min(state.page.pageIndex, pages.count - 1)].map(\.id))
      state.page.errors = state.isScreening || pages.count == 1
        ? errors.byQuestion : errors.byQuestion.filter { onPage.contains($0.key) && draft[$0.key] != nil }
    }
  }

  /// Answers sent from the page of another version of the survey than the one published now
  /// (an operator published an edit while the user was answering): none is taken and nothing is
  /// paid, whatever changed; the answers to questions it still asks are kept for its page, where
  /// the user reads it as it is now and sends them again. A form that names no version (not one
  /// of our pages) is checked against the version now, as any.
  private func sendBackIfUpdated(_ draft: AnswerDraft, version: Int?, state: inout State) -> Effect<Action>? {
    guard let survey = state.page.survey, let version, version != survey.version, state.answered == nil else { return nil }
    // With the answers of the pages sent before it: nothing typed is lost.
    let kept = state.draft?.surveyID == survey.id ? state.draft?.answers ?? [:] : [:]
    state.draft = SurveyDraft(kept.merging(draft) { _, sent in sent }, of: survey)
    state.page.draft = state.draft?.answers ?? [:]
    return .send(.delegate(.updated(survey)))
  }

  /// A screening sent: kept with its errors, or the survey opened, or ended with its
  /// consolation. Sent again (Back, Refresh, a second tab) once decided, it changes nothing.
  private func screen(_ draft: AnswerDraft, state: inout State) -> Effect<Action> {
    guard let survey = state.page.survey, let screening = survey.screening, state.isScreening else { return .none }
    switch screening.verdict(on: draft) {
    case .failure:
      let kept = SurveyDraft(draft, of: survey)
      state.draft = kept
      show(kept.answers, of: survey, state: &state)
      return .none
    case let .success(.qualified(answers)):
      clearDraft(of: survey, &state)
      let now = now
      if let cells = survey.cells {
        // Their quota cell decides too: one they do not fit, or one that is in, screens them out.
        let cell = cells.cell(of: state.progress.profile, at: now, screening: answers)
        if cell.map(survey.isFull) ?? true {
          state.progress.screenOut(of: survey, consolation: screening.consolation, with: answers, id: TransactionID(uuid()), at: now)
          return .send(.delegate(.screenedOut(survey, consolation: screening.consolation)))
        }
      }
      state.progress.qualify(for: survey.id, at: now, with: answers)
      if survey.quality != nil { state.progress.open(survey.id, at: now) }
      return .send(.delegate(.qualified(survey)))
    case let .success(.screenedOut(answers)):
      clearDraft(of: survey, &state)
      state.progress.screenOut(of: survey, consolation: screening.consolation, with: answers, id: TransactionID(uuid()), at: now)
      return .send(.delegate(.screenedOut(survey, consolation: screening.consolation)))
    }
  }

  /// The survey takes no more answers: its draft goes; a user who had passed its screening is paid
  /// its consolation, once.
  private func close(_ survey: Survey, _ closure: Survey.Closure, state: inout State) {
    state.page.closed = closure
    clearDraft(of: survey, &state)
    if let screening = survey.screening, state.progress.qualified[survey.id] != nil {
      state.progress.closeAfterScreening(of: survey, consolation: screening.consolation, id: TransactionID(uuid()), at: now)
    }
  }

  /// Pays for valid, careful answers (nothing when the survey was answered before).
  private func record(_ answers: [SurveyAnswer], to survey: Survey, state: inout State) -> Effect<Action> {
    clearDraft(of: survey, &state)
    let now = now  // one reading: the answer's time and its day agree, even at midnight
    let paid = state.progress.recordAnswer(
      to: survey, with: answers, id: TransactionID(uuid()), at: now, on: Day(now, in: calendar), bonusID: { TransactionID(uuid()) }
    )
    return .send(.delegate(.answered(survey, paid: paid)))
  }

  private func clearDraft(of survey: Survey, _ state: inout State) {
    state.page.draft = [:]
    state.page.errors = [:]
    if state.draft?.surveyID == survey.id { state.draft = nil }
  }

  /// The user's quota cell in `survey`, as their profile is now and their screening answered;
  /// `nil` when it has no cells or they fit none.
  private func cell(of survey: Survey, state: State) -> QuotaCells.Cell? {
    survey.cells?.cell(of: state.progress.profile, at: now, screening: state.progress.screeningAnswers[survey.id] ?? [])
  }

  /// The page of its own questions the user is on, as they see it: the draft's page, or the
  /// next one that shows them a question, in their order.
  private func present(_ survey: Survey, state: inout State) {
    let kept = state.draft?.surveyID == survey.id ? state.draft : nil
    // No condition and nothing shuffled: the page shows its questions as they are.
    guard survey.pagesPerRespondent else { return }
    let order = survey.shuffles ? survey.order(for: respondents.name(survey.id)) : nil
    let shown = survey.page(
      from: kept?.page ?? 0, draft: kept?.answers ?? [:], screening: state.progress.screeningAnswers[survey.id] ?? [], order: order
    )
    state.page.pageIndex = shown.index
    state.page.pageCount = survey.pages.count
    state.page.questions = shown.questions
  }

  /// Back a page: the answers of page `page` kept as they are, unchecked.
  private func back(_ draft: AnswerDraft, page: Int, state: inout State) {
    guard let survey = state.page.survey, !state.isScreening, state.answered == nil, survey.pages.indices.contains(page) else { return }
    // Kept as typed: the page left is not counted as sent (it shows no errors when it comes back).
    let merged = merging(draft, into: survey, page: page, state: state, sent: false)
    let screening = state.progress.screeningAnswers[survey.id] ?? []
    state.draft = SurveyDraft(merged, of: survey, page: survey.page(before: page, draft: merged, screening: screening))
    state.page.pageMoved = true
    present(survey, state: &state)
  }

  /// The answers kept from the other pages, with `page`'s as sent (inputs for questions of other
  /// pages ignored): each of its questions has an entry, empty when nothing was sent for it, which
  /// says the page was sent.
  private func merging(_ draft: AnswerDraft, into survey: Survey, page: Int, state: State, sent: Bool = true) -> AnswerDraft {
    let kept = state.draft?.surveyID == survey.id ? state.draft?.answers ?? [:] : [:]
    let onPage = survey.pages[page].map(\.id)
    var merged = kept
    for question in onPage { merged[question] = draft[question] ?? (sent ? [] : nil) }
    return merged
  }

  /// Answers refused: kept, the user on the first page with a refused answer, which shows why.
  private func refuse(_ draft: AnswerDraft, _ errors: AnswerErrors, of survey: Survey, state: inout State) {
    let page = survey.pages.firstIndex { $0.contains { errors.byQuestion[$0.id] != nil } } ?? 0
    var draft = draft
    if survey.pages.count > 1 {
      for question in errors.byQuestion.keys where draft[question] == nil { draft[question] = [] }  // its page was sent
    }
    let kept = SurveyDraft(draft, of: survey, page: page)
    state.draft = kept
    present(survey, state: &state)
    show(kept.answers, of: survey, state: &state)
  }

  private func submit(_ sent: AnswerDraft, page: Int?, state: inout State) -> Effect<Action> {
    guard let survey = state.page.survey else { return .none }
    // Its own questions open once its screening has qualified.
    if state.isScreening {
      state.page.screeningFirst = true
      return .none
    }
    let screening = state.progress.screeningAnswers[survey.id] ?? []
    var draft = sent
    let pages = survey.pages
    if let page, pages.count > 1, pages.indices.contains(page), state.answered == nil {
      // One page of several: checked with those before it, then on to the next that asks them
      // something; the answers are taken once the last is sent.
      draft = merging(sent, into: survey, page: page, state: state)
      if case let .failure(errors) = Survey.validateShown(draft, against: Array(pages[...page].joined()), earlier: screening) {
        refuse(draft, errors, of: survey, state: &state)
        return .none
      }
      if let next = survey.page(after: page, draft: draft, screening: screening) {
        state.draft = SurveyDraft(draft, of: survey, page: next)
        state.page.pageMoved = true
        present(survey, state: &state)
        return .none
      }
    }
    switch survey.validateAnswers(draft, screening: screening) {
    case let .failure(errors):
      refuse(draft, errors, of: survey, state: &state)
      return .none
    case let .success(answers):
      let now = now  // one reading: the answer's time and its day agree, even at midnight
      if state.answered == nil {
        let failed = AnswerQuality.failedChecks(answers, to: survey, openedAt: state.progress.opened[survey.id] ?? now, submittedAt: now)
        switch AnswerQuality.verdict(failed, reviewRequested: state.progress.reviewRequested.contains(survey.id)) {
        case .accept:
          break
        case .askToReview:
          // Back to the first page, every answer kept, to be read again.
          let kept = SurveyDraft(draft, of: survey)
          state.draft = kept
          present(survey, state: &state)
          state.page.draft = kept.answers
          state.progress.requestReview(of: survey.id)
          return .send(.delegate(.reviewRequested(survey)))
        case .reject:
          clearDraft(of: survey, &state)
          state.progress.recordInvalid(to: survey, with: answers, at: now)
          return .send(.delegate(.answerInvalid(survey)))
        }
        if survey.cells != nil, cell(of: survey, state: state) == nil {
          close(survey, .full, state: &state)  // they fit no cell now (their profile changed)
          return .none
        }
        if survey.quota != nil || survey.cells != nil {
          // A place first: the quota is everyone's, and never goes over (nor does their cell's).
          let (places, cell) = (survey.quota?.places, cell(of: survey, state: state))
          return .run { [quotas] send in
            do {
              await send(.placeClaimed(answers, .success(try await quotas.claim(survey.id, places, cell))))
            } catch {
              await send(.placeClaimed(answers, .failure(QuotaError(error))))
            }
          }
        }
      }
      return record(answers, to: survey, state: &state)
    }
  }
}
