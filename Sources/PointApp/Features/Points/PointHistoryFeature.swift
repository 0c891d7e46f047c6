import CasePaths
import Composable

/// The full ledger, newest first, 20 movements a page.
public struct PointHistory: Reducer, Sendable {
  public static let pageSize = 20

  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The page shown, always one that exists.
    public var pageNumber: Int

    public init(progress: UserProgress = UserProgress(), pageNumber: Int = 1) {
      self.progress = progress
      self.pageNumber = pageNumber
    }

    public var page: LedgerPage { progress.ledger.page(pageNumber, size: PointHistory.pageSize) }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// A page by number; one past either end shows the nearest page that exists.
    case pageRequested(Int)
  }

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .pageRequested(number):
        state.pageNumber = state.progress.ledger.page(number, size: Self.pageSize).number
        return .none
      }
    }
  }
}
