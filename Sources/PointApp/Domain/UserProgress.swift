import Foundation

/// Everything a user has done and earned: answers, points, missions, streak, achievements.
/// Every rule that changes it lives here (merging a guest's history: UserProgress+Merge.swift), so
/// that an award happens once whatever asks for it.
///
/// It stays small however long the user's history: the ledger keeps its newest movements, and
/// answers move to an archive once there are many (`takeArchivable()`), from which the answers
/// a request needs are loaded into `archivedAnswers`.
public struct UserProgress: Codable, Equatable, Sendable {
  public private(set) var ledger = PointLedger()
  /// Answers not archived yet.
  public private(set) var answered: [SurveyID: AnsweredSurvey] = [:]
  /// Archived answers loaded for this request (those of the surveys it may show or answer).
  /// Never saved with the rest: the archive holds them.
  public var archivedAnswers: [SurveyID: AnsweredSurvey] = [:]
  /// How many surveys the user has ever answered, archived ones included.
  public private(set) var answeredCount = 0
  public private(set) var missions = MissionBoard()
  public private(set) var streak = Streak()
  public private(set) var achievements: [Achievement: Date] = [:]
  /// What the user told about themselves: surveys are targeted by it.
  public internal(set) var profile: Profile?
  /// Surveys whose screening this user passed, not answered yet, with when: their own questions
  /// are open to them. The newest `keptQualifications` are kept.
  public private(set) var qualified: [SurveyID: Date] = [:]
  /// The answers that qualified, by survey in `qualified`: the survey's response carries them.
  public private(set) var screeningAnswers: [SurveyID: [SurveyAnswer]] = [:]
  /// How many of `answeredCount` ended at or after their screening with its consolation (screened
  /// out, or closed before the qualified user answered), and how many were invalid: the rest were
  /// completed.
  public private(set) var screenedOutCount = 0
  public private(set) var invalidCount = 0
  /// When each survey's own questions were first shown to this user, not answered yet: how fast
  /// its answers came is measured from then. The newest `keptQualifications` are kept.
  public private(set) var opened: [SurveyID: Date] = [:]
  /// Surveys whose answers were sent back once for review, not answered yet.
  public private(set) var reviewRequested: Set<SurveyID> = []
  /// Exchange requests not archived yet, oldest first: numbers `archivedExchangeCount + 1 ... exchangeCount`.
  public private(set) var exchanges: [ExchangeRequest] = []
  /// How many exchange requests the user has ever made: the last one's number.
  public private(set) var exchangeCount = 0
  /// The mail the member chose to hear, and the invitations and warnings sent (`Notices`).
  public internal(set) var notices = Notices()
  public static let keptQualifications = 20
  /// Requests per archive segment: segment `k` holds numbers `k*size + 1 ... (k+1)*size`.
  public static let exchangeSegmentSize = 20
  /// Requests that always stay here when older ones are archived: the history's first page.
  public static let keptExchanges = 20

  /// How many of the oldest exchange requests are in the archive (numbers `1...archivedExchangeCount`).
  public var archivedExchangeCount: Int { exchanges.first.map { $0.number - 1 } ?? exchangeCount }

  /// Surveys completed, archived ones included.
  public var completedCount: Int { answeredCount - screenedOutCount - invalidCount }

  /// Answers that always stay here when the rest are archived.
  public static let keptAnswers = 5
  /// Answers are archived once there are this many here.
  public static let archiveAnswersAt = 25

  public init() {}

  /// When a survey was answered and what it paid.
  public struct AnsweredSurvey: Codable, Equatable, Sendable {
    public let date: Date
    /// What it paid: the survey's reward, or the screening's consolation.
    public let reward: PointAmount
    public let answers: [SurveyAnswer]
    /// How it ended when not completed (`nil`: completed and paid its reward).
    public private(set) var outcome: Outcome?
    /// The version of the survey answered; absent: the first.
    public private(set) var version: Int?

    public init(date: Date, reward: PointAmount, answers: [SurveyAnswer], outcome: Outcome? = nil, version: Int = 1) {
      self.date = date
      self.reward = reward
      self.answers = answers
      self.outcome = outcome
      self.version = version == 1 ? nil : version
    }

    /// The version of the survey answered.
    public var surveyVersion: Int { version ?? 1 }

    public enum Outcome: String, Codable, Sendable {
      /// The screening did not qualify: the answers are the screening's.
      case screenedOut
      /// Still careless after a review was asked for: not paid, and not to be answered again.
      case invalid
      /// The survey closed (full, or past its deadline) after its screening qualified, before its
      /// own questions were answered: the screening's consolation is paid all the same.
      case closed
    }

    public var isCompleted: Bool { outcome == nil }
  }

  /// What this user answered to a survey, if they did (archived or not, when loaded).
  public func answer(to survey: SurveyID) -> AnsweredSurvey? {
    answered[survey] ?? archivedAnswers[survey]
  }

  /// Counts a visit on `today`: the visit mission and the streak.
  public mutating func recordVisit(on today: Day, at date: Date) {
    missions.recordVisit(on: today)
    streak.recordVisit(on: today)
    unlockAchievements(at: date)
  }

  /// Pays a survey's reward, and the member rank's bonus on it as its own movement (`bonusID`
  /// is asked only then), and advances today's missions. A survey pays once: answering it again
  /// changes nothing and returns `false`.
  @discardableResult
  public mutating func recordAnswer(
    to survey: Survey, with answers: [SurveyAnswer], id: TransactionID, at date: Date, on today: Day,
    bonusID: () -> TransactionID = { preconditionFailure("a rank bonus needs a movement id") }
  ) -> Bool {
    guard answer(to: survey.id) == nil else { return false }
    answered[survey.id] = AnsweredSurvey(date: date, reward: survey.reward, answers: answers, version: survey.version)
    answeredCount += 1
    qualified[survey.id] = nil
    screeningAnswers[survey.id] = nil
    opened[survey.id] = nil
    reviewRequested.remove(survey.id)
    ledger.credit(survey.reward, for: .surveyReward(survey.id), id: id, at: date)
    let bonus = rank(at: date).bonus(on: survey.reward)
    if bonus > .zero { ledger.credit(bonus, for: .rankBonus(survey.id), id: bonusID(), at: date) }
    missions.recordAnswer(earning: survey.reward, on: today)
    unlockAchievements(at: date)
    return true
  }

  /// The member rank at `date`: decided by the points earned in the twelve months before its month.
  public func rank(at date: Date) -> MemberRank {
    ledger.lots.rank(in: Month(date))
  }

  /// Writes off the points that have expired by `date`, one movement per month earned (ids from
  /// `id`), and returns them; nothing when none has, or when they were written off already.
  @discardableResult
  public mutating func expire(at date: Date, id: () -> TransactionID) -> [PointTransaction] {
    ledger.expire(at: date, id: id)
  }

  /// Opens a survey's own questions to this user, who passed its screening; a survey already
  /// answered or passed stays as it is.
  public mutating func qualify(for survey: SurveyID, at date: Date, with answers: [SurveyAnswer] = []) {
    guard answer(to: survey) == nil, qualified[survey] == nil else { return }
    qualified[survey] = date
    if !answers.isEmpty { screeningAnswers[survey] = answers }
    if qualified.count > Self.keptQualifications, let oldest = qualified.min(by: { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }) {
      qualified[oldest.key] = nil
      screeningAnswers[oldest.key] = nil
    }
  }

  /// Notes when a survey's own questions were first shown; a later showing changes nothing.
  public mutating func open(_ survey: SurveyID, at date: Date) {
    guard answer(to: survey) == nil, opened[survey] == nil else { return }
    opened[survey] = date
    if opened.count > Self.keptQualifications, let oldest = opened.min(by: { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }) {
      opened[oldest.key] = nil
    }
  }

  /// Notes that a survey's answers were sent back once for review.
  public mutating func requestReview(of survey: SurveyID) {
    guard answer(to: survey) == nil else { return }
    reviewRequested.insert(survey)
  }

  /// Records careless answers, after a review was asked for, as answered and unpaid: the survey
  /// cannot be answered again. `false` when it had been answered.
  @discardableResult
  public mutating func recordInvalid(to survey: Survey, with answers: [SurveyAnswer], at date: Date) -> Bool {
    guard answer(to: survey.id) == nil else { return false }
    answered[survey.id] = AnsweredSurvey(date: date, reward: .zero, answers: answers, outcome: .invalid, version: survey.version)
    answeredCount += 1
    invalidCount += 1
    qualified[survey.id] = nil
    screeningAnswers[survey.id] = nil
    opened[survey.id] = nil
    reviewRequested.remove(survey.id)
    return true
  }

  /// Ends a survey whose screening did not qualify: its consolation is paid and the screening's
  /// answers kept. Once: a survey answered or screened out before changes nothing (`false`).
  @discardableResult
  public mutating func screenOut(
    of survey: Survey, consolation: PointAmount, with answers: [SurveyAnswer], id: TransactionID, at date: Date
  ) -> Bool {
    guard answer(to: survey.id) == nil, qualified[survey.id] == nil else { return false }
    answered[survey.id] = AnsweredSurvey(date: date, reward: consolation, answers: answers, outcome: .screenedOut, version: survey.version)
    answeredCount += 1
    screenedOutCount += 1
    ledger.credit(consolation, for: .screeningConsolation(survey.id), id: id, at: date)
    return true
  }

  /// Ends a survey that closed after this user passed its screening: its consolation is paid, as if
  /// screened out. Only for a user who qualified and has not answered (`false` otherwise).
  @discardableResult
  public mutating func closeAfterScreening(
    of survey: Survey, consolation: PointAmount, id: TransactionID, at date: Date
  ) -> Bool {
    guard answer(to: survey.id) == nil, qualified[survey.id] != nil else { return false }
    answered[survey.id] = AnsweredSurvey(date: date, reward: consolation, answers: [], outcome: .closed, version: survey.version)
    answeredCount += 1
    screenedOutCount += 1
    qualified[survey.id] = nil
    screeningAnswers[survey.id] = nil
    opened[survey.id] = nil
    reviewRequested.remove(survey.id)
    ledger.credit(consolation, for: .screeningConsolation(survey.id), id: id, at: date)
    return true
  }

  /// Pays a completed mission's bonus, once per day.
  public mutating func claimMission(
    _ kind: DailyMission.Kind, id: TransactionID, at date: Date, on today: Day
  ) throws(PointError) {
    try missions.claim(kind, on: today)
    ledger.credit(kind.bonus, for: .missionBonus(kind), id: id, at: date)
    unlockAchievements(at: date)
  }

  /// Saves the profile. The first one pays `Profile.bonus`, which is returned; editing it later
  /// pays nothing.
  @discardableResult
  public mutating func saveProfile(_ new: Profile, id: TransactionID, at date: Date) -> PointAmount? {
    defer { profile = new }
    guard profile == nil else { return nil }
    ledger.credit(Profile.bonus, for: .profileBonus, id: id, at: date)
    unlockAchievements(at: date)
    return Profile.bonus
  }

  /// Removes what should move to the archive and returns it: whole ledger segments, whole
  /// segments of exchange requests (`takeArchivableExchanges()`), and the oldest answers once
  /// there are `archiveAnswersAt` (all but the newest `keptAnswers`). The caller stores them
  /// durably before it stores the progress without them; the answers stay readable here, in
  /// `archivedAnswers`.
  public mutating func takeArchivable() -> (
    segments: [LedgerSegment], answers: [SurveyID: AnsweredSurvey], exchanges: [ExchangeSegment]
  ) {
    let segments = ledger.takeArchivable()
    let exchanges = takeArchivableExchanges()
    guard answered.count >= Self.archiveAnswersAt else { return (segments, [:], exchanges) }
    let oldestFirst = answered.sorted { ($0.value.date, $0.key.rawValue) < ($1.value.date, $1.key.rawValue) }
    let moved = Dictionary(uniqueKeysWithValues: oldestFirst.dropLast(Self.keptAnswers).map { ($0.key, $0.value) })
    for (id, answer) in moved {
      answered[id] = nil
      archivedAnswers[id] = answer
    }
    return (segments, moved, exchanges)
  }

  /// Removes the oldest `exchangeSegmentSize` requests while all of them have ended and were made
  /// before the newest request's JST month (the limits count only that month's), and
  /// `keptExchanges` newer ones stay.
  private mutating func takeArchivableExchanges() -> [ExchangeSegment] {
    guard let newest = exchanges.last.map({ Month($0.requestedAt) }) else { return [] }
    let size = Self.exchangeSegmentSize
    var segments: [ExchangeSegment] = []
    while exchanges.count - size >= Self.keptExchanges, archivedExchangeCount % size == 0 {
      let oldest = exchanges.prefix(size)
      guard oldest.allSatisfy({ !$0.isPending && Month($0.requestedAt) != newest }) else { break }
      segments.append(ExchangeSegment(start: archivedExchangeCount, requests: Array(oldest)))
      exchanges.removeFirst(size)
    }
    return segments
  }

  private mutating func unlockAchievements(at date: Date) {
    for achievement in Achievement.allCases where achievements[achievement] == nil {
      if achievement.isReached(by: self) { achievements[achievement] = date }
    }
  }
}

/// Exchange requests (ExchangeRequest.swift): made, fulfilled, failed and refunded here, once.
extension UserProgress {
  /// The request numbered `number`, if this user made it.
  public func exchangeRequest(_ number: Int) -> ExchangeRequest? {
    exchanges.last { $0.number == number }
  }

  /// Whether request `number` was made and has moved to the archive.
  public func isArchivedExchange(_ number: Int) -> Bool {
    number >= 1 && number <= archivedExchangeCount
  }

  /// The requests held here among `numbers` counted from 0 (request `n` is `n - 1`), oldest first.
  public func heldExchanges(_ numbers: Range<Int>) -> [ExchangeRequest] {
    exchanges.filter { numbers.contains($0.number - 1) }
  }

  /// Requests not refunded, made on `date`'s day (JST) and in its month: what the limits count.
  public func exchangeUsage(at date: Date) -> (today: Int, thisMonth: PointAmount) {
    let day = Day(date, in: .tokyo)
    let month = Month(date)
    var today = 0
    var thisMonth = PointAmount.zero
    for request in exchanges where request.counts && Month(request.requestedAt) == month {
      thisMonth = thisMonth.adding(request.points)
      if Day(request.requestedAt, in: .tokyo) == day { today += 1 }
    }
    return (today, thisMonth)
  }

  /// Why an exchange for `option` at `date` would be refused, if it would: the balance (expired
  /// points not counted), the day's request, the month's points.
  public func exchangeRefusal(_ option: ExchangeOption, at date: Date) -> PointError? {
    let usage = exchangeUsage(at: date)
    if usage.today >= ExchangeLimits.perDay { return .dailyLimit }
    if usage.thisMonth.adding(option.total) > ExchangeLimits.monthlyPoints { return .monthlyLimit }
    if ledger.balance(at: date) < option.total { return .insufficientBalance }
    return nil
  }

  /// Makes a request: its points (cost and fee) are held by movement `id`, and it waits for its
  /// code. Refused, changing nothing, past a limit or beyond the balance.
  @discardableResult
  public mutating func requestExchange(_ option: ExchangeOption, id: TransactionID, at date: Date) throws(PointError) -> ExchangeRequest {
    if let refusal = exchangeRefusal(option, at: date) { throw refusal }
    let number = exchangeCount + 1
    try ledger.debit(option.total, for: .exchangeHold(request: number, option: option.id), id: id, at: date)
    let request = ExchangeRequest(number: number, option: option.id, points: option.total, requestedAt: date, key: id)
    exchanges.append(request)
    exchangeCount = number
    return request
  }

  /// Ends a pending request with its code; `false` (changing nothing) for one that is not pending.
  @discardableResult
  public mutating func fulfilExchange(_ number: Int, with code: GiftCode, at date: Date) -> Bool {
    guard let index = exchanges.lastIndex(where: { $0.number == number }), exchanges[index].isPending else { return false }
    exchanges[index].status = .fulfilled(code: code, at: date)
    unlockAchievements(at: date)
    return true
  }

  /// Ends a pending request as failed and gives its points back (movement `refundID`), once;
  /// `false` (changing nothing) for one that is not pending.
  @discardableResult
  public mutating func failExchange(_ number: Int, refundID: TransactionID, at date: Date) -> Bool {
    guard let index = exchanges.lastIndex(where: { $0.number == number }), exchanges[index].isPending else { return false }
    let request = exchanges[index]
    exchanges[index].status = .failed(at: date, refundID: refundID)
    ledger.credit(request.points, for: .exchangeRefund(request: number, option: request.option), id: refundID, at: date)
    return true
  }

  /// Counts an attempt that did not end a pending request (the issuer could not be reached).
  public mutating func noteExchangeAttempt(_ number: Int) {
    guard let index = exchanges.lastIndex(where: { $0.number == number }), case let .pending(attempts) = exchanges[index].status else { return }
    exchanges[index].status = .pending(attempts: attempts + 1)
  }
}

/// The support desk's changes (Support.swift), each a ledger movement of its own.
extension UserProgress {
  /// The longest reason an adjustment may give, and the most points it may move.
  public static let maxAdjustmentReason = 200
  public static let maxAdjustment = 1_000_000

  /// The reason of an adjustment as kept (trimmed), once `points` and it are ones an adjustment
  /// may have: a reason of 1 to 200 characters, a whole number of points up to ±1,000,000, not 0.
  public static func checkedAdjustment(points: Int, reason: String) throws(SupportError) -> String {
    let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !reason.isEmpty else { throw .reasonRequired }
    guard reason.count <= Self.maxAdjustmentReason else { throw .reasonTooLong }
    guard points != 0, points.magnitude <= Self.maxAdjustment else { throw .invalidAmount }
    return reason
  }

  /// Adds or takes `points` with `reason`, which the user reads in the history, as movement `id`;
  /// an id the ledger holds already was this adjustment, done. Never overdraws.
  public mutating func adjustPoints(by points: Int, reason: String, id: TransactionID, at date: Date) throws(SupportError) {
    guard !ledger.recent.contains(where: { $0.id == id }) else { throw .alreadyDone }
    let reason = try Self.checkedAdjustment(points: points, reason: reason)
    guard let amount = PointAmount(Int(points.magnitude)) else { throw .invalidAmount }
    if points > 0 {
      ledger.credit(amount, for: .adjustmentCredit(reason), id: id, at: date)
    } else {
      do {
        try ledger.debit(amount, for: .adjustmentDebit(reason), id: id, at: date)
      } catch {
        throw .insufficientBalance
      }
    }
  }

  /// Refuses, as `approveInvalidAnswer` would, an answer that is not one recorded invalid here.
  public func checkApprovable(_ survey: SurveyID) throws(SupportError) {
    guard let answer = answered[survey] else { throw archivedAnswers[survey] == nil ? .notInvalid : .archived }
    guard answer.outcome == .invalid else { throw .notInvalid }
  }

  /// Pays an answer recorded invalid after all: it becomes a completed answer to `survey`, paid
  /// its reward (movement `id`) and the rank's bonus on it (`bonusID`, asked only then), as an
  /// answer is, once. Only an answer held here, not archived.
  public mutating func approveInvalidAnswer(
    to survey: Survey, id: TransactionID, at date: Date,
    bonusID: () -> TransactionID = { preconditionFailure("a rank bonus needs a movement id") }
  ) throws(SupportError) {
    try checkApprovable(survey.id)
    guard let answer = answered[survey.id] else { return }
    answered[survey.id] = AnsweredSurvey(date: answer.date, reward: survey.reward, answers: answer.answers, version: answer.surveyVersion)
    invalidCount -= 1
    ledger.credit(survey.reward, for: .surveyReward(survey.id), id: id, at: date)
    let bonus = rank(at: date).bonus(on: survey.reward)
    if bonus > .zero { ledger.credit(bonus, for: .rankBonus(survey.id), id: bonusID(), at: date) }
    unlockAchievements(at: date)
  }
}

/// Adding a guest's history, part by part: `absorb(_:on:at:)` (UserProgress+Merge.swift) decides
/// what moves; these add it to the parts that only this file may change.
extension UserProgress {
  /// Adds an answer given as a guest, as it was. Given today, it counts in today's missions, as
  /// it would have had the guest been signed in; its reward moves with the movements.
  mutating func addGuestAnswer(_ answer: AnsweredSurvey, to survey: SurveyID, on today: Day) {
    answered[survey] = answer
    answeredCount += 1
    if Day(answer.date, in: .tokyo) == today { missions.recordAnswer(earning: answer.reward, on: today) }
  }

  /// Appends a guest's movement as it was: same id, date and amount.
  mutating func addGuestMovement(_ movement: PointTransaction) {
    ledger.append(movement)
  }

  /// Counts a guest's bonus for today as claimed; `false` when this account had claimed it today.
  mutating func addGuestClaim(_ kind: DailyMission.Kind, on today: Day) -> Bool {
    missions.recordClaim(kind, on: today)
  }

  /// Adds a guest's visits: today's visit mission and the streak (`Streak.merge`).
  mutating func addGuestVisits(_ guest: Streak, visitedToday: Bool, on today: Day) {
    if visitedToday { missions.recordVisit(on: today) }
    streak.merge(guest)
  }

  /// Takes a guest's profile when the account has none; `false` when it has one (the guest's bonus
  /// is then not moved: a profile pays once).
  mutating func addGuestProfile(_ guest: Profile?) -> Bool {
    guard profile == nil, let guest else { return false }
    profile = guest
    return true
  }

  /// Adds a guest's achievements, each dated when first unlocked by either, then unlocks those
  /// the merged progress has reached.
  mutating func addGuestAchievements(_ guest: [Achievement: Date], at date: Date) {
    achievements.merge(guest, uniquingKeysWith: min)
    unlockAchievements(at: date)
  }
}

extension UserProgress {
  private enum CodingKeys: String, CodingKey {
    case ledger, answered, answeredCount, missions, streak, achievements, profile, qualified, screenedOutCount
    case invalidCount, opened, reviewRequested, screeningAnswers, exchanges, exchangeCount, notices
  }

  /// Reads this version's shape or version 1's, which had no `answeredCount` (every answer was
  /// kept, so it is their number).
  public init(from decoder: any Decoder) throws {
    self.init()
    let container = try decoder.container(keyedBy: CodingKeys.self)
    ledger = try container.decode(PointLedger.self, forKey: .ledger)
    answered = try container.decode([SurveyID: AnsweredSurvey].self, forKey: .answered)
    answeredCount = try container.decodeIfPresent(Int.self, forKey: .answeredCount) ?? answered.count
    missions = try container.decode(MissionBoard.self, forKey: .missions)
    streak = try container.decode(Streak.self, forKey: .streak)
    achievements = try container.decode([Achievement: Date].self, forKey: .achievements)
    profile = try container.decodeIfPresent(Profile.self, forKey: .profile)
    qualified = try container.decodeIfPresent([SurveyID: Date].self, forKey: .qualified) ?? [:]
    screenedOutCount = try container.decodeIfPresent(Int.self, forKey: .screenedOutCount) ?? 0
    invalidCount = try container.decodeIfPresent(Int.self, forKey: .invalidCount) ?? 0
    opened = try container.decodeIfPresent([SurveyID: Date].self, forKey: .opened) ?? [:]
    reviewRequested = try container.decodeIfPresent(Set<SurveyID>.self, forKey: .reviewRequested) ?? []
    screeningAnswers = try container.decodeIfPresent([SurveyID: [SurveyAnswer]].self, forKey: .screeningAnswers) ?? [:]
    exchanges = try container.decodeIfPresent([ExchangeRequest].self, forKey: .exchanges) ?? []
    exchangeCount = try container.decodeIfPresent(Int.self, forKey: .exchangeCount) ?? 0
    notices = try container.decodeIfPresent(Notices.self, forKey: .notices) ?? Notices()
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(ledger, forKey: .ledger)
    try container.encode(answered, forKey: .answered)
    try container.encode(answeredCount, forKey: .answeredCount)
    try container.encode(missions, forKey: .missions)
    try container.encode(streak, forKey: .streak)
    try container.encode(achievements, forKey: .achievements)
    try container.encodeIfPresent(profile, forKey: .profile)
    if !qualified.isEmpty { try container.encode(qualified, forKey: .qualified) }
    if screenedOutCount > 0 { try container.encode(screenedOutCount, forKey: .screenedOutCount) }
    if invalidCount > 0 { try container.encode(invalidCount, forKey: .invalidCount) }
    if !opened.isEmpty { try container.encode(opened, forKey: .opened) }
    if !reviewRequested.isEmpty { try container.encode(reviewRequested.sorted { $0.rawValue < $1.rawValue }, forKey: .reviewRequested) }
    if !screeningAnswers.isEmpty { try container.encode(screeningAnswers, forKey: .screeningAnswers) }
    if !exchanges.isEmpty { try container.encode(exchanges, forKey: .exchanges) }
    if exchangeCount > 0 { try container.encode(exchangeCount, forKey: .exchangeCount) }
    if !notices.isEmpty { try container.encode(notices, forKey: .notices) }
  }
}
