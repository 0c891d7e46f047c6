import Foundation

/// The mail a member may stop: not the messages of their account (verification, reset), which
/// always go.
public enum NoticeList: String, Codable, CaseIterable, Comparable, Sendable {
  /// 新着アンケートのお知らせ: a survey they can answer was published.
  case invitations
  /// ポイント失効のお知らせ: a month's points expire within `Notices.warningLead`.
  case expiry

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  public var title: String {
    switch self {
    case .invitations: "新着アンケートのお知らせ"
    case .expiry: "ポイント失効のお知らせ"
    }
  }
}

/// Points of one month's lot that expire soon: how many, and when.
public struct ExpiringPoints: Codable, Equatable, Sendable {
  public let month: Month
  public let amount: PointAmount
  public var expiresAt: Date { month.pointsExpireAt }

  public init(month: Month, amount: PointAmount) {
    self.month = month
    self.amount = amount
  }
}

/// What the member chose to hear, and what they were told already: each survey's invitation and
/// each lot's warning go once.
public struct Notices: Codable, Equatable, Sendable {
  /// A lot is warned of this long before its points expire.
  public static let warningLead: TimeInterval = 30 * 24 * 3600
  /// The newest invitations kept: a survey older than these has long stopped inviting.
  public static let keptInvitations = 100
  /// The newest warned months kept: a lot expires a year after its month, so older ones are gone.
  public static let keptWarnings = 24
  /// A survey's reminder goes this long before its deadline, to those invited who have not
  /// answered it.
  public static let reminderLead: TimeInterval = 2 * 24 * 3600
  /// No reminder within this long of the invitation (a survey published close to its deadline
  /// invites, and that is all).
  public static let reminderGap: TimeInterval = 24 * 3600

  /// The lists stopped, in order.
  public private(set) var stopped: [NoticeList] = []
  /// The surveys the member was invited to, with when.
  public private(set) var invited: [SurveyID: Date] = [:]
  /// The months whose lot's expiry was warned of, oldest first.
  public private(set) var warned: [Month] = []
  /// The surveys the member was reminded of, in the order reminded; absent: none (as in states
  /// saved before reminders).
  public private(set) var reminded: [SurveyID]?

  public init() {}

  public var isEmpty: Bool { stopped.isEmpty && invited.isEmpty && warned.isEmpty && reminded == nil }

  public func receives(_ list: NoticeList) -> Bool { !stopped.contains(list) }

  /// Stops or starts `list`; whether anything changed.
  @discardableResult
  public mutating func set(_ list: NoticeList, on: Bool) -> Bool {
    guard receives(list) != on else { return false }
    if on { stopped.removeAll { $0 == list } } else { stopped = (stopped + [list]).sorted() }
    return true
  }

  mutating func recordInvitation(to survey: SurveyID, at date: Date) {
    invited[survey] = date
    if invited.count > Self.keptInvitations, let oldest = invited.min(by: { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }) {
      invited[oldest.key] = nil
    }
  }

  mutating func recordReminder(of survey: SurveyID) {
    reminded = Array(((reminded ?? []) + [survey]).suffix(Self.keptInvitations))
  }

  mutating func recordWarning(of months: [Month]) {
    warned = Array((warned + months).sorted().suffix(Self.keptWarnings))
  }
}

extension UserProgress {
  /// Whether the member is to be invited to `survey` now, noting it when they are: once per
  /// survey, while it is open, to a member it targets who has not answered it and hears of new
  /// surveys.
  public mutating func invite(to survey: Survey, at date: Date) -> Bool {
    guard notices.receives(.invitations), notices.invited[survey.id] == nil, answer(to: survey.id) == nil,
      survey.status(at: date) == .open, survey.eligibility(of: profile, at: date) == .eligible
    else { return false }
    notices.recordInvitation(to: survey.id, at: date)
    return true
  }

  /// Whether the member is to be reminded of `survey` now, noting it when they are: once, within
  /// `Notices.reminderLead` of its deadline while it is open, when they were invited to it at least
  /// `Notices.reminderGap` before, have not answered it and still hear of surveys.
  public mutating func remind(of survey: Survey, at date: Date) -> Bool {
    guard notices.receives(.invitations), let invitedAt = notices.invited[survey.id], date.timeIntervalSince(invitedAt) >= Notices.reminderGap,
      notices.reminded?.contains(survey.id) != true,
      answer(to: survey.id) == nil, survey.status(at: date) == .open, survey.eligibility(of: profile, at: date) == .eligible,
      let deadline = survey.expiresAt, deadline.timeIntervalSince(date) <= Notices.reminderLead
    else { return false }
    notices.recordReminder(of: survey.id)
    return true
  }

  /// The lots whose points expire within `Notices.warningLead` of `date` and were not warned of,
  /// noted as warned now; empty when there is nothing to say (or the member stopped these).
  public mutating func expiryWarning(at date: Date) -> [ExpiringPoints] {
    guard notices.receives(.expiry) else { return [] }
    let due = ledger.lots.lots.filter { lot in
      lot.remaining > .zero && lot.month.pointsExpireAt > date && lot.month.pointsExpireAt.timeIntervalSince(date) <= Notices.warningLead
        && !notices.warned.contains(lot.month)
    }
    notices.recordWarning(of: due.map(\.month))
    return due.map { ExpiringPoints(month: $0.month, amount: $0.remaining) }
  }

  public mutating func setNotices(_ list: NoticeList, on: Bool) -> Bool {
    notices.set(list, on: on)
  }
}

/// How a survey's invitations stand, for its dashboard: the members looked at so far and the
/// invitations sent, since `started`; `finished` once every member has been looked at (or the
/// survey closed).
public struct InvitationProgress: Codable, Equatable, Sendable {
  public var started: Date
  public var examined: Int
  public var sent: Int
  public var finished: Date?

  public init(started: Date, examined: Int = 0, sent: Int = 0, finished: Date? = nil) {
    self.started = started
    self.examined = examined
    self.sent = sent
    self.finished = finished
  }
}

extension UserProgress {
  /// What a member who left keeps no more: their profile, and every list of mail (nobody to
  /// write to). Their answers and points stay, unreachable, under their pseudonym.
  public mutating func forgetMember() {
    profile = nil
    for list in NoticeList.allCases { notices.set(list, on: false) }
  }
}
