import Foundation

/// Everything a guest did, archived parts included, as the storage layer reads it back.
public struct GuestHistory: Equatable, Sendable {
  /// Every answer, archived ones included.
  public var answers: [SurveyID: UserProgress.AnsweredSurvey]
  /// Every ledger movement, oldest first.
  public var movements: [PointTransaction]
  public var missions: MissionBoard
  public var streak: Streak
  public var achievements: [Achievement: Date]
  public var profile: Profile?

  public init(
    answers: [SurveyID: UserProgress.AnsweredSurvey], movements: [PointTransaction], missions: MissionBoard,
    streak: Streak, achievements: [Achievement: Date], profile: Profile? = nil
  ) {
    self.profile = profile
    self.answers = answers
    self.movements = movements
    self.missions = missions
    self.streak = streak
    self.achievements = achievements
  }
}

/// What merging a guest into an account did, to tell the user.
public struct MergeReport: Equatable, Sendable {
  /// Net points that reached the account: the guest's movements that moved, credits less debits;
  /// zero when the debits are larger (then see `pointsDeducted`).
  public var pointsMoved: PointAmount
  /// Net points the account lost: what the guest exchanged beyond the guest's points that moved,
  /// because rewards it spent were dropped as duplicates. Zero when `pointsMoved` is not.
  public var pointsDeducted: PointAmount
  /// Answers moved.
  public var surveysMoved: Int
  /// Surveys answered in both, sorted: paid once, the guest's answer and reward dropped.
  public var duplicateSurveys: [SurveyID]
  /// Today's missions claimed in both, in the order the guest claimed them: paid once.
  public var duplicateMissions: [DailyMission.Kind]

  public init(
    pointsMoved: PointAmount, pointsDeducted: PointAmount = .zero, surveysMoved: Int,
    duplicateSurveys: [SurveyID], duplicateMissions: [DailyMission.Kind]
  ) {
    self.pointsMoved = pointsMoved
    self.pointsDeducted = pointsDeducted
    self.surveysMoved = surveysMoved
    self.duplicateSurveys = duplicateSurveys
    self.duplicateMissions = duplicateMissions
  }
}

extension UserProgress {
  /// Adds what a guest did to this account's progress, paying nothing twice, as if the guest had
  /// been signed in to it all along where that can be known.
  ///
  /// `self` is the account's progress, its archived answers loaded for every survey the guest
  /// answered: a survey answered in both pays once, so the account's answer and reward stay and
  /// the guest's are dropped. A survey only the guest answered moves with its answer and its
  /// reward; given today, it counts in today's missions. A guest's bonus for a mission of today
  /// (in Tokyo) is dropped when the account claimed that mission today, and otherwise counts as
  /// claimed today; bonuses of past days stay. Exchanges stay as they were: their points were
  /// spent. The guest's visit of today, streak (`Streak.merge`) and achievements (each dated by
  /// its earliest unlock) are added, then achievements the merged progress reached unlock.
  ///
  /// Movements keep their id, date and amount and follow the account's in the ledger, since
  /// archived segments never change: the history lists them as the newest, each with its date.
  /// The totals stay the exact sums of the movements. If the guest exchanged points of a dropped
  /// duplicate and the account's balance cannot cover them, the exchange still moves (it
  /// happened), so more is spent than earned: the balance is zero and later earnings make up the
  /// difference before it grows, which recovers the points paid twice.
  ///
  /// Absorbing the same guest again pays nothing again: its answers are the account's by then,
  /// its bonuses of today are claimed, and movements whose id the ledger holds are skipped. Only
  /// the ledger's recent movements can be seen, so once the moved ones are archived a past day's
  /// bonus or an exchange would move again. So the caller deletes the guest once the merge is
  /// saved; the id check covers a request retried before that.
  public mutating func absorb(_ guest: GuestHistory, on today: Day, at date: Date) -> MergeReport {
    let moving = guest.answers.filter { answer(to: $0.key) == nil }
    let duplicates = guest.answers.keys.filter { moving[$0] == nil }
    for (survey, guestAnswer) in moving { addGuestAnswer(guestAnswer, to: survey, on: today) }

    let takesProfile = addGuestProfile(guest.profile)
    let held = Set(ledger.recent.map(\.id))
    var credited = 0, debited = 0
    var duplicateMissions: [DailyMission.Kind] = []
    for movement in guest.movements where !held.contains(movement.id) {
      switch movement.reason {
      case let .surveyReward(survey):
        guard moving[survey] != nil else { continue }
      case let .missionBonus(kind):
        if Day(movement.date, in: .tokyo) == today, !addGuestClaim(kind, on: today) {
          duplicateMissions.append(kind)
          continue
        }
      case let .rankBonus(survey):
        guard moving[survey] != nil else { continue }
      case .expiry:
        // Not moved: the guest's points that did move land in their month's lot, and the
        // account writes off what has expired of them itself, exactly (a guest's expiry of a
        // reward dropped as a duplicate would take the account's own points).
        continue
      case .exchange, .exchangeHold, .exchangeRefund, .adjustmentCredit, .adjustmentDebit:
        break
      case .profileBonus:
        guard takesProfile else { continue }
      case let .screeningConsolation(survey):
        guard moving[survey] != nil else { continue }
      }
      addGuestMovement(movement)
      if movement.reason.isCredit { credited += movement.amount.value } else { debited += movement.amount.value }
    }

    addGuestVisits(guest.streak, visitedToday: guest.missions.day == today && guest.missions.visited, on: today)
    addGuestAchievements(guest.achievements, at: date)
    return MergeReport(
      pointsMoved: PointAmount(credited - debited) ?? .zero,
      pointsDeducted: PointAmount(debited - credited) ?? .zero,
      surveysMoved: moving.count,
      duplicateSurveys: duplicates.sorted { $0.rawValue < $1.rawValue },
      duplicateMissions: duplicateMissions
    )
  }
}
