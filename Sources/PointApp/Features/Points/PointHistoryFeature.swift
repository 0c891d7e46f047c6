import CasePaths
import Composable
import Dependencies

/// The full ledger, newest first, 20 movements a page. The newest pages come from the user's
/// state; older ones are read from the ledger's archive.
public struct PointHistory: Reducer, Sendable {
  public static let pageSize = 20

  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    public var page: Page

    public init(progress: UserProgress = UserProgress(), page: Page = Page()) {
      self.progress = progress
      self.page = page
    }
  }

  /// The page shown, always one that exists; not saved.
  public struct Page: Equatable, Sendable {
    public var number = 1
    public var pageCount = 1
    /// Newest first.
    public var transactions: [PointTransaction] = []
    /// The archived part of the page could not be read: the page says so instead of showing a gap.
    public var archiveFailed = false

    public init(number: Int = 1, pageCount: Int = 1, transactions: [PointTransaction] = [], archiveFailed: Bool = false) {
      self.number = number
      self.pageCount = pageCount
      self.transactions = transactions
      self.archiveFailed = archiveFailed
    }

    public var hasPrevious: Bool { number > 1 }
    public var hasNext: Bool { number < pageCount }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    /// A page by number; one past either end shows the nearest page that exists.
    case pageRequested(Int)
    case archiveLoaded(Result<[LedgerSegment], LedgerArchiveError>)
  }

  @Dependency(\.ledgerArchive) var archive

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      let ledger = state.progress.ledger
      switch action {
      case let .pageRequested(number):
        let span = ledger.pageSpan(number, size: Self.pageSize)
        state.page = Page(number: span.number, pageCount: span.pageCount)
        guard span.numbers.lowerBound < ledger.archivedCount else {
          state.page.transactions = ledger.held(span.numbers).reversed()
          return .none
        }
        let starts = span.segmentStarts(archived: ledger.archivedCount, size: PointLedger.segmentSize)
        return .run { send in
          do {
            var segments: [LedgerSegment] = []
            for start in starts { segments.append(try await archive.segment(start)) }
            await send(.archiveLoaded(.success(segments)))
          } catch {
            await send(.archiveLoaded(.failure(LedgerArchiveError(error))))
          }
        }
      case let .archiveLoaded(.success(segments)):
        let span = ledger.pageSpan(state.page.number, size: Self.pageSize)
        var archived: [PointTransaction] = []
        for segment in segments {
          for (offset, transaction) in segment.transactions.enumerated()
          where span.numbers.contains(segment.start + offset) {
            archived.append(transaction)
          }
        }
        guard let transactions = span.items(archived: archived, held: ledger.held(span.numbers)) else {
          state.page.archiveFailed = true
          return .none
        }
        state.page.transactions = transactions
        return .none
      case .archiveLoaded(.failure):
        state.page.archiveFailed = true
        return .none
      }
    }
  }
}
