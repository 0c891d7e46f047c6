import Foundation

/// One finished answer to a survey, as its client gets it: recorded once per answer, under a
/// pseudonym of the respondent, with what the survey's targeting knew of them.
public struct SurveyResponse: Codable, Equatable, Sendable {
  public enum Outcome: String, Codable, CodingKeyRepresentable, CaseIterable, Sendable {
    /// 完了: answered and paid its reward.
    case completed
    /// 対象外: the screening did not qualify (its consolation paid).
    case screenedOut
    /// 無効: still careless after a review was asked for; unpaid.
    case invalid
    /// 受付終了: the survey closed after the screening qualified (its consolation paid).
    case closed

    public var title: String {
      switch self {
      case .completed: "完了"
      case .screenedOut: "対象外"
      case .invalid: "無効"
      case .closed: "受付終了"
      }
    }
  }

  public let surveyID: SurveyID
  /// The version of the survey answered.
  public let version: Int
  /// Who answered, as a pseudonym: the same for one user within one survey, another in another
  /// survey, and nothing that leads to an email or a user id without the server's key.
  public let respondent: String
  public let outcome: Outcome
  /// The answers to the survey's own questions (none when screened out or closed).
  public let answers: [SurveyAnswer]
  /// The answers to its screening, when it has one.
  public let screening: [SurveyAnswer]
  /// When its own questions were first shown (`nil`: not known).
  public let shownAt: Date?
  public let sentAt: Date
  /// The answer-quality checks it failed.
  public let flags: [QualityCheck]
  /// Its answers had been sent back once for review before these.
  public let reviewed: Bool
  public let paid: PointAmount
  /// What the survey's targeting knew of the respondent (`nil`: no profile then).
  public let ageBand: Int?
  public let gender: Gender?
  public let prefecture: Prefecture?
  /// The order it was shown in, where the survey shuffles (`nil`: the survey's own).
  public let order: ShownOrder?
  /// The quota cell it took its place in (`QuotaCells.Cell.name`), where the survey has cells.
  public let cell: String?

  public init(
    surveyID: SurveyID, version: Int, respondent: String, outcome: Outcome, answers: [SurveyAnswer], screening: [SurveyAnswer] = [],
    shownAt: Date?, sentAt: Date, flags: [QualityCheck] = [], reviewed: Bool = false, paid: PointAmount,
    ageBand: Int? = nil, gender: Gender? = nil, prefecture: Prefecture? = nil, order: ShownOrder? = nil, cell: String? = nil
  ) {
    self.surveyID = surveyID
    self.version = version
    self.respondent = respondent
    self.outcome = outcome
    self.answers = answers
    self.screening = screening
    self.shownAt = shownAt
    self.sentAt = sentAt
    self.flags = flags
    self.reviewed = reviewed
    self.paid = paid
    self.ageBand = ageBand
    self.gender = gender
    self.prefecture = prefecture
    self.order = order
    self.cell = cell
  }

  /// The response as the support desk approved it: completed, paying `paid`; its answers, times
  /// and the checks it failed as they were.
  public func approved(paying paid: PointAmount) -> SurveyResponse {
    SurveyResponse(
      surveyID: surveyID, version: version, respondent: respondent, outcome: .completed, answers: answers, screening: screening,
      shownAt: shownAt, sentAt: sentAt, flags: flags, reviewed: reviewed, paid: paid, ageBand: ageBand, gender: gender,
      prefecture: prefecture, order: order, cell: cell
    )
  }

  /// The same response under another respondent's name.
  public func respondent(_ name: String) -> SurveyResponse {
    SurveyResponse(
      surveyID: surveyID, version: version, respondent: name, outcome: outcome, answers: answers, screening: screening,
      shownAt: shownAt, sentAt: sentAt, flags: flags, reviewed: reviewed, paid: paid, ageBand: ageBand, gender: gender,
      prefecture: prefecture, order: order, cell: cell
    )
  }

  /// The age band of an age: its decade (20 for 20 to 29).
  public static func ageBand(of age: Int) -> Int { max(0, age / 10 * 10) }
}

extension SurveyResponse {
  /// The responses a change of a user's progress finished: one for each survey answered in it, of
  /// whatever outcome, as `survey` describes the survey answered and `respondent` names the user
  /// in it. Only the profile attributes the survey targeted are kept.
  public static func finished(
    from before: UserProgress, to after: UserProgress, survey: (SurveyID) -> Survey?, respondent: (SurveyID) -> String
  ) -> [SurveyResponse] {
    after.answered.compactMap { id, answered -> SurveyResponse? in
      guard before.answer(to: id) == nil, let survey = survey(id) else { return nil }
      let outcome: Outcome = switch answered.outcome {
      case nil: .completed
      case .screenedOut?: .screenedOut
      case .invalid?: .invalid
      case .closed?: .closed
      }
      let own = outcome == .completed || outcome == .invalid
      let shownAt = own ? before.opened[id] : nil
      let targeting = survey.targeting
      let profile = targeting == nil ? nil : after.profile
      let screening = outcome == .screenedOut ? answered.answers : before.screeningAnswers[id] ?? []
      let name = respondent(id)
      return SurveyResponse(
        surveyID: id, version: answered.surveyVersion, respondent: name, outcome: outcome,
        answers: own ? answered.answers : [],
        screening: screening,
        shownAt: shownAt, sentAt: answered.date,
        flags: own ? AnswerQuality.failedChecks(answered.answers, to: survey, openedAt: shownAt ?? answered.date, submittedAt: answered.date) : [],
        reviewed: before.reviewRequested.contains(id),
        paid: answered.reward,
        ageBand: targeting?.minAge != nil || targeting?.maxAge != nil ? profile.map { ageBand(of: $0.age(at: answered.date)) } : nil,
        gender: targeting?.genders != nil ? profile?.gender : nil,
        prefecture: targeting?.prefectures != nil ? profile?.prefecture : nil,
        order: own ? survey.order(for: name) : nil,
        cell: own ? survey.cells?.cell(of: after.profile, at: answered.date, screening: screening)?.name : nil
      )
    }.sorted { $0.surveyID.rawValue < $1.surveyID.rawValue }
  }

  /// The answers recorded invalid in `before` that `after` pays (the support desk approved
  /// them), with what each pays: their responses become completes.
  public static func approvals(from before: UserProgress, to after: UserProgress) -> [(survey: SurveyID, paid: PointAmount)] {
    after.answered.compactMap { id, answered in
      before.answered[id]?.outcome == .invalid && answered.outcome == nil ? (id, answered.reward) : nil
    }.sorted { $0.survey.rawValue < $1.survey.rawValue }
  }
}
