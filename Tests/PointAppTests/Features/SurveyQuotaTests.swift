import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Synchronization
import Testing

/// Quotas as the survey feature meets them: a place is claimed for careful, valid answers before
/// they are paid; a survey that has closed takes nothing, and pays a qualified user's screening.
struct SurveyQuotaTests {
  /// The quota store's stand-in (a boundary): places shared by every store of a test.
  final class Places: Sendable {
    let holders = Mutex<Set<String>>([])
    let failing: Bool

    init(failing: Bool = false) { self.failing = failing }

    func client(for user: String) -> QuotaClient {
      QuotaClient(claim: { [self] _, places, _ in
        struct Down: Error {}
        if failing { throw Down() }
        return holders.withLock { holders in
          if holders.contains(user) { return true }
          guard holders.count < places ?? .max else { return false }
          holders.insert(user)
          return true
        }
      })
    }
  }

  static let limited = Survey.fixture(id: "limited", title: "先着1名の調査", questions: [.satisfaction], reward: 70, quota: Quota(target: 1))
  static let limitedScreened = Survey.fixture(
    id: "limited-coffee", title: "先着のコーヒー調査", questions: [.satisfaction], reward: 70,
    screening: Survey.screenedCoffee.screening, quota: Quota(target: 5)
  )
  let rated = [SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))]

  func store(
    _ survey: Survey, _ intent: SurveyDetail.Page.Intent, user: String, places: Places, progress: UserProgress = UserProgress()
  ) -> TestStoreOf<SurveyDetail> {
    TestStore(initialState: SurveyDetail.State(progress: progress, page: SurveyDetail.Page(surveyID: survey.id, intent: intent))) {
      SurveyDetail()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.calendar = .tokyo
      $0.quotas = places.client(for: user)
    }
  }

  /// Quota = 1, two submitters: the first is paid, the second finds it full and is paid nothing.
  @Test func aQuotaOfOneTakesTheFirstOfTwoSubmitters() async {
    let places = Places()
    let first = store(Self.limited, .submit(ratingAnswer), user: "first", places: places)
    let second = store(Self.limited, .submit(ratingAnswer), user: "second", places: places)
    await first.send(.surveyLoaded(.success(Self.limited))) { $0.page.survey = Self.limited }
    await first.receive(.placeClaimed(rated, .success(true))) {
      $0.progress.recordAnswer(to: Self.limited, with: self.rated, id: TransactionID(UUID(0)), at: noon, on: today)
    }
    await first.receive(.delegate(.answered(Self.limited, paid: true)))

    // Its list still said one place left when the second sent their answers.
    await second.send(.surveyLoaded(.success(Self.limited))) { $0.page.survey = Self.limited }
    await second.receive(.placeClaimed(rated, .success(false))) { $0.page.closed = .full }
    #expect(second.state.progress == UserProgress(), "nothing recorded, nothing paid")
    #expect(places.holders.withLock { $0 } == ["first"])
  }

  /// Once counted full, the survey is closed to anyone who has not answered: no screening, no claim.
  @Test func aFullSurveyIsClosedBeforeItsScreening() async {
    let full = Self.limitedScreened.counting(taken: 5)
    let guest = store(full, .answer, user: "guest", places: Places())
    await guest.send(.surveyLoaded(.success(full))) {
      $0.page.survey = full
      $0.page.closed = .full
    }
    let screening = store(full, .screen([QuestionID("drinks"): ["never"]]), user: "guest", places: Places())
    await screening.send(.surveyLoaded(.success(full))) {
      $0.page.survey = full
      $0.page.closed = .full
    }
    #expect(screening.state.progress == UserProgress(), "not screened out, nothing paid")
  }

  /// A user who passed the screening and finds the survey full when sending their answers is paid
  /// the screening's consolation, once: the survey is then theirs as closed.
  @Test func aQualifiedUserWhoFindsItFullIsPaidTheScreeningConsolationOnce() async {
    var qualified = UserProgress()
    qualified.qualify(for: Self.limitedScreened.id, at: noon - 300)
    let places = Places()
    places.holders.withLock { $0 = ["a", "b", "c", "d", "e"] }
    let store = store(Self.limitedScreened, .submit(ratingAnswer), user: "late", places: places, progress: qualified)
    await store.send(.surveyLoaded(.success(Self.limitedScreened))) { $0.page.survey = Self.limitedScreened }
    await store.receive(.placeClaimed(rated, .success(false))) {
      $0.page.closed = .full
      $0.progress.closeAfterScreening(of: Self.limitedScreened, consolation: 3, id: TransactionID(UUID(0)), at: noon)
    }
    #expect(store.state.progress.ledger.balance == 3)
    #expect(store.state.answered?.outcome == .closed)
    #expect(store.state.progress.completedCount == 0 && store.state.progress.qualified.isEmpty)

    // Seen again, counted full: closed, and nothing more paid.
    let full = Self.limitedScreened.counting(taken: 5)
    let again = self.store(full, .answer, user: "late", places: places, progress: store.state.progress)
    await again.send(.surveyLoaded(.success(full))) {
      $0.page.survey = full
      $0.page.closed = .full
    }
    #expect(again.state.progress.ledger.balance == 3)
  }

  /// Past its deadline, a survey a user qualified for pays the consolation when they come back.
  @Test func aQualifiedUserWhoComesBackAfterTheDeadlineIsPaidTheConsolation() async {
    let survey = Survey.fixture(
      id: "ended-coffee", questions: [.satisfaction], reward: 70, publishedAt: noon - days(5), expiresAt: noon - 1,
      screening: Survey.screenedCoffee.screening
    )
    var qualified = UserProgress()
    qualified.qualify(for: survey.id, at: noon - 300)
    let store = store(survey, .answer, user: "late", places: Places(), progress: qualified)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.page.closed = .deadlinePassed
      $0.progress.closeAfterScreening(of: survey, consolation: 3, id: TransactionID(UUID(0)), at: noon)
    }
  }

  /// The quota cannot be counted (its store is down): nothing is recorded, the page says so.
  @Test func aClaimThatFailsRecordsNothing() async {
    let store = store(Self.limited, .submit(ratingAnswer), user: "u", places: Places(failing: true))
    await store.send(.surveyLoaded(.success(Self.limited))) { $0.page.survey = Self.limited }
    await store.receive(\.placeClaimed) { $0.page.loadFailed = true }
    #expect(store.state.progress == UserProgress())
  }

  /// Careless answers claim no place: sent back for review, the place stays free.
  @Test func answersSentBackForReviewClaimNoPlace() async {
    let survey = Survey.fixture(
      id: "quick", questions: [.satisfaction], reward: 70, quality: QualitySettings(minSecondsPerQuestion: 60), quota: Quota(target: 1)
    )
    var opened = UserProgress()
    opened.open(survey.id, at: noon - 5)
    let places = Places()
    let store = store(survey, .submit(ratingAnswer), user: "fast", places: places, progress: opened)
    await store.send(.surveyLoaded(.success(survey))) {
      $0.page.survey = survey
      $0.draft = SurveyDraft(ratingAnswer, of: survey)
      $0.page.draft = ratingAnswer
      $0.progress.requestReview(of: survey.id)
    }
    await store.receive(.delegate(.reviewRequested(survey)))
    #expect(places.holders.withLock { $0.isEmpty })
  }
}
