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

/// The responses of a survey as a table, the layout of the export: one column per question, one
/// per grid row, one 0/1 column per option of a multiple-choice question; each column has a code
/// (`S1` for screening questions, `Q1`, `Q2_3` for the third option or row of `Q2`) and a Japanese
/// heading. Columns follow the survey's version given; an answer of another version fills the
/// columns of the questions, options and rows it shares with it (by id).
public struct ResponseTable: Sendable {
  public enum Cell: Equatable, Sendable {
    case text(String)
    case number(Int)
    case empty
  }

  public struct Column: Equatable, Sendable {
    public let code: String
    public let heading: String
    fileprivate let value: Value

    fileprivate enum Value: Equatable, Sendable {
      case respondent, outcome, version, shownAt, sentAt, seconds, flags, paid, ageBand, gender, prefecture
      /// A single choice, an attention check, a rating, a number or a text: the answer.
      case answer(QuestionID, screening: Bool)
      /// An option of a multiple-choice question: 1 when picked, else 0.
      case option(QuestionID, ChoiceID, screening: Bool)
      /// A row of a grid: the scale's label picked.
      case row(QuestionID, String)
    }
  }

  public let columns: [Column]
  private let labels: [QuestionID: [ChoiceID: String]]

  public init(survey: Survey) {
    var columns: [Column] = [
      Column(code: "respondent", heading: "回答者", value: .respondent),
      Column(code: "outcome", heading: "結果", value: .outcome),
      Column(code: "version", heading: "版", value: .version),
      Column(code: "shown_at", heading: "表示日時", value: .shownAt),
      Column(code: "sent_at", heading: "回答日時", value: .sentAt),
      Column(code: "seconds", heading: "回答秒数", value: .seconds),
      Column(code: "flags", heading: "品質フラグ", value: .flags),
      Column(code: "points", heading: "付与ポイント", value: .paid),
      Column(code: "age_band", heading: "年代", value: .ageBand),
      Column(code: "gender", heading: "性別", value: .gender),
      Column(code: "prefecture", heading: "都道府県", value: .prefecture),
    ]
    var labels: [QuestionID: [ChoiceID: String]] = [:]
    func add(_ question: SurveyQuestion, code: String, screening: Bool) {
      switch question.kind {
      case let .multipleChoice(choices, _, _):
        for (index, choice) in choices.enumerated() {
          columns.append(Column(code: "\(code)_\(index + 1)", heading: "\(code) \(question.text)：\(choice.label)", value: .option(question.id, choice.id, screening: screening)))
        }
      case let .grid(rows, scale):
        labels[question.id] = Dictionary(scale.map { ($0.id, $0.label) }) { first, _ in first }
        for (index, row) in rows.enumerated() {
          columns.append(Column(code: "\(code)_\(index + 1)", heading: "\(code) \(question.text)：\(row.label)", value: .row(question.id, row.id)))
        }
      case let .singleChoice(choices), let .attentionCheck(choices, _):
        labels[question.id] = Dictionary(choices.map { ($0.id, $0.label) }) { first, _ in first }
        columns.append(Column(code: code, heading: "\(code) \(question.text)", value: .answer(question.id, screening: screening)))
      case .freeText, .longText, .rating, .number:
        columns.append(Column(code: code, heading: "\(code) \(question.text)", value: .answer(question.id, screening: screening)))
      }
    }
    for (index, question) in (survey.screening?.questions ?? []).enumerated() { add(question, code: "S\(index + 1)", screening: true) }
    for (index, question) in survey.questions.enumerated() { add(question, code: "Q\(index + 1)", screening: false) }
    self.columns = columns
    self.labels = labels
  }

  /// A response's cells, column by column.
  public func row(_ response: SurveyResponse) -> [Cell] {
    let answers = Dictionary(response.answers.map { ($0.questionID, $0.value) }) { first, _ in first }
    let screening = Dictionary(response.screening.map { ($0.questionID, $0.value) }) { first, _ in first }
    return columns.map { column in
      switch column.value {
      case .respondent: .text(response.respondent)
      case .outcome: .text(response.outcome.title)
      case .version: .number(response.version)
      case .shownAt: response.shownAt.map { .text(Self.format($0)) } ?? .empty
      case .sentAt: .text(Self.format(response.sentAt))
      case .seconds: response.shownAt.map { .number(Int(response.sentAt.timeIntervalSince($0).rounded(.down))) } ?? .empty
      case .flags: .text(response.flags.map(\.rawValue).joined(separator: " "))
      case .paid: .number(response.paid.value)
      case .ageBand: response.ageBand.map { .text("\($0)代") } ?? .empty
      case .gender: response.gender.map { .text($0.title) } ?? .empty
      case .prefecture: response.prefecture.map { .text($0.title) } ?? .empty
      case let .answer(question, isScreening):
        switch (isScreening ? screening : answers)[question] {
        case let .choice(choice)?: .text(labels[question]?[choice] ?? choice.rawValue)
        case let .text(text)?: .text(text)
        case let .rating(value)?, let .number(value)?: .number(value)
        case .choices?, .grid?, nil: .empty
        }
      case let .option(question, choice, isScreening):
        // An optional question left unanswered picked nothing; unasked (screened out), it is empty.
        if case let .choices(picked)? = (isScreening ? screening : answers)[question] {
          .number(picked.contains(choice) ? 1 : 0)
        } else {
          (isScreening ? response.screening : response.answers).isEmpty ? .empty : .number(0)
        }
      case let .row(question, row):
        if case let .grid(cells)? = answers[question], let cell = cells.first(where: { $0.row == row }) {
          .text(labels[question]?[cell.choice] ?? cell.choice.rawValue)
        } else {
          .empty
        }
      }
    }
  }

  /// Tokyo time to the second, as a spreadsheet reads a date: `2026-11-22 12:00:00`. Counted from
  /// the zone's offset, as `Day` is (the calendar's component arithmetic took a tenth of an
  /// export's time).
  static func format(_ date: Date) -> String {
    let day = Day(date, in: .tokyo)
    let (year, month, dayOfMonth) = day.civil
    let local = date.wholeSecondsSince1970 + Calendar.tokyo.timeZone.secondsFromGMT(for: date)
    let second = local - day.ordinal * 86_400
    // Written digit by digit: `String(format:)` took a tenth of an export's time.
    var text: [UInt8] = []
    text.reserveCapacity(19)
    func digits(_ number: Int, _ count: Int) {
      var divisor = 1
      for _ in 1..<count { divisor *= 10 }
      while divisor > 0 {
        text.append(UInt8(ascii: "0") + UInt8(number / divisor % 10))
        divisor /= 10
      }
    }
    digits(year, 4)
    let (dash, space, colon) = (UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: ":"))
    for (separator, number) in [(dash, month), (dash, dayOfMonth), (space, second / 3_600), (colon, second / 60 % 60), (colon, second % 60)] {
      text.append(separator)
      digits(number, 2)
    }
    return String(decoding: text, as: UTF8.self)
  }
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
