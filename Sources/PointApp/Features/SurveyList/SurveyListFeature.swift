import CasePaths
import Composable
import Dependencies
import Foundation

/// The survey list: the catalog's open surveys meant for the user (by their profile), filtered by
/// category and sorted, answered ones marked; after them, those that closed lately (受付終了).
public struct SurveyList: Reducer, Sendable {
  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    public var page: Page

    public init(progress: UserProgress = UserProgress(), page: Page = Page()) {
      self.progress = progress
      self.page = page
    }

    public func isAnswered(_ survey: Survey) -> Bool { progress.answer(to: survey.id) != nil }
  }

  /// What the list page shows; not saved.
  public struct Page: Equatable, Sendable {
    public var category: SurveyCategory?
    public var sort: SurveySort = .newest
    public var surveys: [Survey] = []
    /// Surveys meant for the user that take no more answers: full, or past their deadline for
    /// less than `closedShownFor`.
    public var closedSurveys: [Survey] = []
    public var loadFailed = false
    /// Some surveys are hidden because the user has no profile yet: the page invites them to fill it.
    public var surveysNeedProfile = false
    /// Open surveys published within `newFor` that the user has not answered: marked 新着.
    public var newSurveys: Set<SurveyID> = []
    /// The catalog as the request found it (places counted), when whoever sends the action read
    /// it beforehand (the web layer does, `AppFeature.Action.readsCatalog`): the list is then made
    /// from it at once. `nil`: an effect fetches it.
    public var catalog: [Survey]?

    public init(category: SurveyCategory? = nil, sort: SurveySort = .newest, surveys: [Survey] = [], loadFailed: Bool = false) {
      self.category = category
      self.sort = sort
      self.surveys = surveys
      self.loadFailed = loadFailed
    }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested(category: SurveyCategory?, sort: SurveySort)
    case surveysLoaded(Result<[Survey], CatalogError>)
  }

  @Dependency(\.surveyClient) var surveyClient
  @Dependency(\.date.now) var now

  /// How long a survey past its deadline stays listed as closed.
  public static let closedShownFor: TimeInterval = 7 * 24 * 60 * 60
  /// How long a survey is 新着 after it is published.
  public static let newFor: TimeInterval = 3 * 24 * 60 * 60

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .pageRequested(category, sort):
        state.page.category = category
        state.page.sort = sort
        if let catalog = state.page.catalog {
          list(catalog.filtered(by: category), in: &state)
          return .none
        }
        return .run { send in
          do {
            let surveys = if let category {
              try await surveyClient.fetchByCategory(category)
            } else {
              try await surveyClient.fetchAll()
            }
            await send(.surveysLoaded(.success(surveys)))
          } catch {
            await send(.surveysLoaded(.failure(CatalogError(error))))
          }
        }
      case let .surveysLoaded(.success(surveys)):
        list(surveys, in: &state)
        return .none
      case .surveysLoaded(.failure):
        state.page.surveys = []
        state.page.newSurveys = []
        state.page.closedSurveys = []
        state.page.surveysNeedProfile = false
        state.page.loadFailed = true
        return .none
      }
    }
  }

  /// The page's lists, from the catalog's `surveys`.
  private func list(_ surveys: [Survey], in state: inout State) {
    let now = now  // one clock reading for the whole list
    let profile = state.progress.profile
    var open: [Survey] = []
    var closed: [Survey] = []
    var needsProfile = false
    for survey in surveys where survey.isPublished(at: now) {
      let closure = survey.closure(at: now)
      switch survey.eligibility(of: profile, at: now) {
      case .eligible:
        switch closure {
        case nil: open.append(survey)
        case .full?: closed.append(survey)
        case .deadlinePassed?:
          if let expiresAt = survey.expiresAt, now.timeIntervalSince(expiresAt) < Self.closedShownFor { closed.append(survey) }
        }
      case .needsProfile:
        needsProfile = needsProfile || closure == nil
      case .outsideTarget:
        break
      }
    }
    state.page.surveys = state.page.sort.sorted(open)
    state.page.newSurveys = Set(open.filter { now.timeIntervalSince($0.publishedAt) < Self.newFor && !state.isAnswered($0) }.map(\.id))
    state.page.closedSurveys = closed.isEmpty ? [] : state.page.sort.sorted(closed)
    state.page.surveysNeedProfile = needsProfile
    state.page.loadFailed = false
  }
}

/// The catalog could not be read.
public struct CatalogError: Error, Equatable, Sendable {
  public let reason: String

  public init(_ error: any Error) { reason = String(describing: error) }
}
