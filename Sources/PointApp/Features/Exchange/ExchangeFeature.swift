import CasePaths
import Composable
import Dependencies
import Foundation

/// Exchanging points: an option, its confirmation, the password when it is asked, then a request
/// whose points are held (申請中), queued with the save; the fulfiller asks its source for the
/// code outside the user's lock and reports what it said in a new update: 交換完了 with the code,
/// or 失敗 with the points back. Points leave the site only from an
/// account, only with its password typed in the last 10 minutes, at most once a day and
/// `ExchangeLimits.monthlyPoints` a month.
public struct Exchange: Reducer, Sendable {
  /// How long a typed password lets exchanges through without asking again.
  public static let passwordGrace: TimeInterval = 10 * 60
  /// A request still pending this long after it was made is ended when next taken up: with the
  /// code if one was issued after all, otherwise refunded (`ExchangeRequest.nextCall`).
  public static let giveUpAfter: TimeInterval = 24 * 60 * 60
  /// Requests on a page of the history.
  public static let historyPageSize = 20

  public struct State: Equatable, Sendable {
    public var progress: UserProgress
    /// The question asked before an exchange; not saved.
    public var confirmation: AlertState<Action>?
    /// The account signed in, and when its password was last typed in this session.
    public var account: EmailAddress?
    public var passwordConfirmedAt: Date?
    /// The confirmation asks for the password (not typed in the last 10 minutes).
    public var asksPassword = false
    /// The account's address has been proved (`AddressVerification`): only then do points leave.
    public var addressVerified = false
    /// What the page shows of the moment: built per request, never saved.
    public var page = Page()
    /// The page of the history shown; not saved.
    public var history = History()
    /// The support desk's moves of pending requests, written to the queue with the save.
    public var nudges: [ExchangeNudge] = []

    public init(
      progress: UserProgress = UserProgress(), confirmation: AlertState<Action>? = nil,
      account: EmailAddress? = nil, addressVerified: Bool = false, passwordConfirmedAt: Date? = nil, page: Page = Page(),
      history: History = History()
    ) {
      self.progress = progress
      self.confirmation = confirmation
      self.account = account
      self.addressVerified = addressVerified
      self.passwordConfirmedAt = passwordConfirmedAt
      self.page = page
      self.history = history
    }

    /// Whether an exchange at `now` needs the password typed again.
    public func needsPassword(at now: Date) -> Bool {
      guard let confirmed = passwordConfirmedAt else { return true }
      return now.timeIntervalSince(confirmed) >= Exchange.passwordGrace
    }
  }

  /// The balance and the limits as they stand when the page is asked for.
  public struct Page: Equatable, Sendable {
    /// The balance, expired points left out.
    public var balance = PointAmount.zero
    public var requestedToday = false
    /// Points that can still be requested this month.
    public var leftThisMonth = ExchangeLimits.monthlyPoints
    /// Why each option cannot be requested now, by option.
    public var refusals: [ExchangeOption.ID: PointError] = [:]
    /// The codes are the built-in issuer's, for testing: the page says so.
    public var testCodes = false

    public init(
      balance: PointAmount = .zero, requestedToday: Bool = false, leftThisMonth: PointAmount = ExchangeLimits.monthlyPoints,
      refusals: [ExchangeOption.ID: PointError] = [:], testCodes: Bool = false
    ) {
      self.balance = balance
      self.requestedToday = requestedToday
      self.leftThisMonth = leftThisMonth
      self.refusals = refusals
      self.testCodes = testCodes
    }
  }

  /// A page of every request, newest first, always one that exists. The newest requests come
  /// from the user's state, older ones from the archive.
  public struct History: Equatable, Sendable {
    public var number = 1
    public var pageCount = 1
    public var requests: [ExchangeRequest] = []
    /// The archived part of the page could not be read: the page says so instead of showing a gap.
    public var archiveFailed = false

    public init(number: Int = 1, pageCount: Int = 1, requests: [ExchangeRequest] = [], archiveFailed: Bool = false) {
      self.number = number
      self.pageCount = pageCount
      self.requests = requests
      self.archiveFailed = archiveFailed
    }

    public var hasPrevious: Bool { number > 1 }
    public var hasNext: Bool { number < pageCount }
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case pageRequested
    /// A page of the list of every request was asked for; one past either end shows the nearest.
    case historyRequested(Int)
    case historyArchiveLoaded(Result<[ExchangeSegment], LedgerArchiveError>)
    /// Request `number`'s page was asked for: an archived one is read from the archive.
    case requestOpened(Int)
    case archivedRequestLoaded(Int, Result<ExchangeSegment, LedgerArchiveError>)
    /// An option was chosen: asks whether to exchange it.
    case optionSelected(ExchangeOption.ID)
    /// The exchange was confirmed on a confirmation shown when the ledger held `ledgerCount`
    /// movements, with the password when it was asked for.
    case exchangeButtonTapped(ExchangeOption.ID, ledgerCount: Int, password: Secret? = nil)
    /// The password typed with an exchange was checked: when, if it was right.
    case passwordChecked(Result<Date, AccountError>, ExchangeOption.ID, ledgerCount: Int)
    /// The support desk asks for a pending request to be asked of its source again now.
    case retryRequested(Int)
    /// What the source said of a pending request (the fulfiller, outside the user's lock, reports
    /// it in a new update): its code, a refusal (its points back), or nothing (an attempt noted).
    case fulfilmentFinished(Int, Result<GiftCode, GiftCodeError>)
    /// The support desk asks for a pending request to end now: with the code if one was issued,
    /// otherwise refunded (the fulfiller cancels it at the source).
    case cancellationRequested(Int)
    /// What a cancellation at the source found: the code issued before, or none (refunded).
    case cancellationFinished(Int, Result<GiftCode?, GiftCodeError>)
    case delegate(Delegate)

    @CasePathable
    public enum Delegate: Equatable, Sendable {
      /// A request was made: its points are held.
      case requested(ExchangeRequest)
      case fulfilled(ExchangeRequest)
      /// The issuer rejected it: its points are back.
      case failed(ExchangeRequest)
      /// The issuer did not answer: it stays pending.
      case delayed(ExchangeRequest)
      case exchangeRefused(PointError)
      /// Exchanging needs an account, or the password again.
      case signInRequired
      /// Exchanging needs the account's address verified first.
      case verificationRequired
      case passwordRefused(AccountError)
    }
  }

  @Dependency(\.date.now) var now
  @Dependency(\.uuid) var uuid
  @Dependency(\.accounts) var accounts
  @Dependency(\.ledgerArchive) var archive
  @Dependency(\.giftOffer) var offer

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      // Every exchange page says when the codes are for testing (the built-in issuer's).
      let offer = offer.current()
      state.page.testCodes = offer.testCodes
      switch action {
      case .pageRequested:
        let now = now
        let usage = state.progress.exchangeUsage(at: now)
        state.page = Page(
          balance: state.progress.ledger.balance(at: now),
          requestedToday: usage.today >= ExchangeLimits.perDay,
          leftThisMonth: ExchangeLimits.monthlyPoints.subtracting(usage.thisMonth) ?? .zero,
          refusals: Dictionary(uniqueKeysWithValues: ExchangeOption.all.compactMap { option in
            refusal(option, offer: offer, state.progress).map { (option.id, $0) }
          }),
          testCodes: offer.testCodes
        )
        return .none
      case let .historyRequested(number):
        let progress = state.progress
        let span = PageSpan(page: number, of: progress.exchangeCount, size: Self.historyPageSize)
        state.history = History(number: span.number, pageCount: span.pageCount)
        let archived = progress.archivedExchangeCount
        guard span.numbers.lowerBound < archived else {
          state.history.requests = progress.heldExchanges(span.numbers).reversed()
          return .none
        }
        let starts = span.segmentStarts(archived: archived, size: UserProgress.exchangeSegmentSize)
        return .run { [archive] send in
          do {
            var segments: [ExchangeSegment] = []
            for start in starts { segments.append(try await archive.exchanges(start)) }
            await send(.historyArchiveLoaded(.success(segments)))
          } catch {
            await send(.historyArchiveLoaded(.failure(LedgerArchiveError(error))))
          }
        }
      case let .historyArchiveLoaded(.success(segments)):
        let span = PageSpan(page: state.history.number, of: state.progress.exchangeCount, size: Self.historyPageSize)
        let archived = segments.flatMap(\.requests).filter { span.numbers.contains($0.number - 1) }
        guard let requests = span.items(archived: archived, held: state.progress.heldExchanges(span.numbers)) else {
          state.history.archiveFailed = true
          return .none
        }
        state.history.requests = requests
        return .none
      case .historyArchiveLoaded(.failure):
        state.history.archiveFailed = true
        return .none
      case let .requestOpened(number):
        guard state.progress.isArchivedExchange(number) else { return .none }
        let start = (number - 1) / UserProgress.exchangeSegmentSize * UserProgress.exchangeSegmentSize
        return .run { [archive] send in
          do {
            await send(.archivedRequestLoaded(number, .success(try await archive.exchanges(start))))
          } catch {
            await send(.archivedRequestLoaded(number, .failure(LedgerArchiveError(error))))
          }
        }
      case .archivedRequestLoaded:
        return .none
      case let .optionSelected(id):
        guard let option = ExchangeOption(id: id) else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        guard state.account != nil else { return .send(.delegate(.signInRequired)) }
        guard state.addressVerified else { return .send(.delegate(.verificationRequired)) }
        guard !offer.unavailable.contains(id) else { return .send(.delegate(.exchangeRefused(.optionUnavailable))) }
        state.confirmation = .exchange(option, ledgerCount: state.progress.ledger.count, testCodes: offer.testCodes)
        state.asksPassword = state.needsPassword(at: now)
        return .none
      case let .exchangeButtonTapped(id, ledgerCount, password):
        state.confirmation = nil
        guard ExchangeOption(id: id) != nil else {
          return .send(.delegate(.exchangeRefused(.unknownOption)))
        }
        guard state.account != nil else { return .send(.delegate(.signInRequired)) }
        guard state.addressVerified else { return .send(.delegate(.verificationRequired)) }
        guard state.needsPassword(at: now) else { return exchange(id, ledgerCount: ledgerCount, &state) }
        guard let password, !password.value.isEmpty else { return .send(.delegate(.passwordRefused(.passwordRequired))) }
        return .asking({ try await accounts.confirmPassword(password.value) }) {
          .passwordChecked($0, id, ledgerCount: ledgerCount)
        }
      case let .passwordChecked(.success(date), id, ledgerCount):
        state.passwordConfirmedAt = date
        return exchange(id, ledgerCount: ledgerCount, &state)
      case let .passwordChecked(.failure(error), _, _):
        return .send(.delegate(.passwordRefused(error)))
      case let .retryRequested(number):
        guard state.progress.exchangeRequest(number)?.isPending == true else { return .none }
        state.nudges.append(ExchangeNudge(number: number, end: false))
        return .none
      case let .fulfilmentFinished(number, .success(code)), let .cancellationFinished(number, .success(code?)):
        guard state.progress.fulfilExchange(number, with: code, at: now), let request = state.progress.exchangeRequest(number) else {
          return .none
        }
        return .send(.delegate(.fulfilled(request)))
      case let .fulfilmentFinished(number, .failure(.rejected)), let .cancellationFinished(number, .success(nil)):
        guard state.progress.failExchange(number, refundID: TransactionID(uuid()), at: now),
          let request = state.progress.exchangeRequest(number)
        else { return .none }
        return .send(.delegate(.failed(request)))
      case let .fulfilmentFinished(number, .failure(.unavailable)), let .cancellationFinished(number, .failure):
        state.progress.noteExchangeAttempt(number)
        guard let request = state.progress.exchangeRequest(number), request.isPending else { return .none }
        return .send(.delegate(.delayed(request)))
      case let .cancellationRequested(number):
        guard state.progress.exchangeRequest(number)?.isPending == true else { return .none }
        state.nudges.append(ExchangeNudge(number: number, end: true))
        return .none
      case .delegate:
        return .none
      }
    }
  }

  private func exchange(_ id: ExchangeOption.ID, ledgerCount: Int, _ state: inout State) -> Effect<Action> {
    guard let option = ExchangeOption(id: id) else {
      return .send(.delegate(.exchangeRefused(.unknownOption)))
    }
    guard ledgerCount == state.progress.ledger.count else {
      return .send(.delegate(.exchangeRefused(.staleConfirmation)))
    }
    let now = now
    if let refusal = refusal(option, offer: offer.current(), state.progress) {
      return .send(.delegate(.exchangeRefused(refusal)))
    }
    do throws(PointError) {
      // Held, and queued with the save: the fulfiller asks the source outside the user's lock.
      let request = try state.progress.requestExchange(option, id: TransactionID(uuid()), at: now)
      return .send(.delegate(.requested(request)))
    } catch {
      return .send(.delegate(.exchangeRefused(error)))
    }
  }

  /// Why `option` cannot be requested now: the provider cannot deliver it, or the user's limits
  /// and balance (`UserProgress.exchangeRefusal`).
  private func refusal(_ option: ExchangeOption, offer: GiftOffer, _ progress: UserProgress) -> PointError? {
    offer.unavailable.contains(option.id) ? .optionUnavailable : progress.exchangeRefusal(option, at: now)
  }
}

extension AlertState where Action == Exchange.Action {
  /// Asked before points are held: what arrives, what it costs and its fee, and what happens if it
  /// cannot be issued. Its answer counts only while the ledger still holds `ledgerCount` movements.
  public static func exchange(_ option: ExchangeOption, ledgerCount: Int, testCodes: Bool = false) -> Self {
    let fee = option.fee > .zero ? "（うち手数料\(option.fee)）" : "（手数料なし）"
    let test = testCodes ? "このサイトのコードはテスト用で、どこでも使えません。" : ""
    return AlertState(
      title: "\(option.title)に交換しますか？",
      message: "\(option.total)\(fee)を使います。届くもの：\(option.delivers)。発行できなかったときはポイントをお返しします。\(test)",
      buttons: [
        ButtonState(action: .exchangeButtonTapped(option.id, ledgerCount: ledgerCount), label: "交換を申請する"),
        ButtonState(role: .cancel, label: "やめる"),
      ]
    )
  }
}
