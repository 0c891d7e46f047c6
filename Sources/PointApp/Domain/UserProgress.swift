import Foundation

/// Everything a user has done and earned: answers, points, missions, streak, achievements.
/// Every rule that changes it lives here, so that an award happens once whatever asks for it.
public struct UserProgress: Codable, Equatable, Sendable {
  public private(set) var ledger = PointLedger()
  public private(set) var answered: [SurveyID: AnsweredSurvey] = [:]
  public private(set) var missions = MissionBoard()
  public private(set) var streak = Streak()
  public private(set) var achievements: [Achievement: Date] = [:]

  public init() {}

  /// When a survey was answered and what it paid.
  public struct AnsweredSurvey: Codable, Equatable, Sendable {
    public let date: Date
    public let reward: PointAmount
    public let answers: [SurveyAnswer]
  }

  /// Counts a visit on `today`: the visit mission and the streak.
  public mutating func recordVisit(on today: Day, at date: Date) {
    missions.recordVisit(on: today)
    streak.recordVisit(on: today)
    unlockAchievements(at: date)
  }

  /// Pays a survey's reward and advances today's missions. A survey pays once: answering it again
  /// changes nothing and returns `false`.
  @discardableResult
  public mutating func recordAnswer(
    to survey: Survey, with answers: [SurveyAnswer], id: TransactionID, at date: Date, on today: Day
  ) -> Bool {
    guard answered[survey.id] == nil else { return false }
    answered[survey.id] = AnsweredSurvey(date: date, reward: survey.reward, answers: answers)
    ledger.credit(survey.reward, for: .surveyReward(survey.id), id: id, at: date)
    missions.recordAnswer(earning: survey.reward, on: today)
    unlockAchievements(at: date)
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

  /// Exchanges points; never overdraws.
  public mutating func exchange(_ option: ExchangeOption, id: TransactionID, at date: Date) throws(PointError) {
    try ledger.debit(option.cost, for: .exchange(option.id), id: id, at: date)
    unlockAchievements(at: date)
  }

  private mutating func unlockAchievements(at date: Date) {
    for achievement in Achievement.allCases where achievements[achievement] == nil {
      if achievement.isReached(by: self) { achievements[achievement] = date }
    }
  }
}
