import Foundation

/// A survey of the catalog: what it asks, what it pays and until when.
///
/// A value, kept in one shared box: pages and reducers copy, filter and sort the catalog's surveys
/// on every request, and a copy is then one reference rather than one per field. Two copies of the
/// same survey compare equal without comparing their fields.
public struct Survey: Codable, CustomReflectable, Equatable, Identifiable, Sendable {
  /// The saved form, field by field (what `Codable` reads and writes).
  private struct Fields: Codable, Equatable, Sendable {
    let id: SurveyID
    let title: String
    let description: String
    let category: SurveyCategory
    let questions: [SurveyQuestion]
    let reward: PointAmount
    let estimatedMinutes: Int
    let publishedAt: Date
    let expiresAt: Date?
    /// Absent: anyone may answer.
    let targeting: Targeting?
    /// Absent: the survey's own questions come first.
    let screening: Screening?
    /// Absent: no minimum time.
    let quality: QualitySettings?
    /// Absent: no limit on completes.
    let quota: Quota?
    /// Absent: the first. Each edit an operator publishes makes the next.
    let version: Int?
    /// Absent: its questions in its order.
    let shuffleQuestions: Bool?
    /// Absent: no quota per cell.
    let cells: QuotaCells?
  }

  private final class Box: Sendable {
    let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  private let box: Box
  /// Of its quota's places, those taken on this site when the survey was fetched: the catalog's
  /// client counts them (`counting(taken:)`); not part of the catalog file.
  public internal(set) var placesTaken = 0
  /// Of each quota cell's places (by the cell's name), those taken when it was fetched, counted
  /// as `placesTaken` is.
  public internal(set) var cellsTaken: [String: Int] = [:]

  public var id: SurveyID { box.fields.id }
  public var title: String { box.fields.title }
  public var description: String { box.fields.description }
  public var category: SurveyCategory { box.fields.category }
  public var questions: [SurveyQuestion] { box.fields.questions }
  public var reward: PointAmount { box.fields.reward }
  public var estimatedMinutes: Int { box.fields.estimatedMinutes }
  public var publishedAt: Date { box.fields.publishedAt }
  /// `nil`: open without end.
  public var expiresAt: Date? { box.fields.expiresAt }
  /// Whom the survey is for; `nil`: anyone.
  public var targeting: Targeting? { box.fields.targeting }
  /// The questions asked first, to find the people the survey is for; `nil`: none.
  public var screening: Screening? { box.fields.screening }
  /// The minimum time its answers take; `nil`: none.
  public var quality: QualitySettings? { box.fields.quality }
  /// How many completes it takes in all; `nil`: no limit.
  public var quota: Quota? { box.fields.quota }
  /// Which of its published versions this is: 1 for the first; each published edit makes the next,
  /// and every answer keeps the version it answered.
  public var version: Int { box.fields.version ?? 1 }
  /// Whether each respondent gets its questions in an order of their own (within each page).
  public var shufflesQuestions: Bool { box.fields.shuffleQuestions == true }
  /// Its quota per cell (割付); `nil`: none.
  public var cells: QuotaCells? { box.fields.cells }

  public init(
    id: SurveyID, title: String, description: String, category: SurveyCategory,
    questions: [SurveyQuestion], reward: PointAmount, estimatedMinutes: Int,
    publishedAt: Date, expiresAt: Date?, targeting: Targeting? = nil, screening: Screening? = nil,
    quality: QualitySettings? = nil, quota: Quota? = nil, version: Int = 1, shufflesQuestions: Bool = false, cells: QuotaCells? = nil
  ) {
    box = Box(Fields(
      id: id, title: title, description: description, category: category, questions: questions,
      reward: reward, estimatedMinutes: estimatedMinutes, publishedAt: publishedAt, expiresAt: expiresAt,
      targeting: targeting, screening: screening, quality: quality, quota: quota, version: version == 1 ? nil : version,
      shuffleQuestions: shufflesQuestions ? true : nil, cells: cells
    ))
  }

  public init(from decoder: any Decoder) throws {
    box = Box(try Fields(from: decoder))
  }

  public func encode(to encoder: any Encoder) throws {
    try box.fields.encode(to: encoder)
  }

  /// Its fields, as if they were stored here (test failure diffs and dumps show them).
  public var customMirror: Mirror {
    var children = Array(Mirror(reflecting: box.fields).children)
    if placesTaken > 0 { children.append((label: "placesTaken", value: placesTaken)) }
    if !cellsTaken.isEmpty { children.append((label: "cellsTaken", value: cellsTaken)) }
    return Mirror(self, children: children, displayStyle: .struct)
  }

  public static func == (lhs: Survey, rhs: Survey) -> Bool {
    lhs.placesTaken == rhs.placesTaken && lhs.cellsTaken == rhs.cellsTaken && (lhs.box === rhs.box || lhs.box.fields == rhs.box.fields)
  }

  /// Whether the survey is published at `date`: shown, open or closed.
  public func isPublished(at date: Date) -> Bool {
    publishedAt <= date
  }

  /// Whether the survey can be answered at `date`: published, and neither past its deadline nor
  /// full.
  public func isAvailable(at date: Date) -> Bool {
    isPublished(at: date) && closure(at: date) == nil
  }

  /// Whether a user with `profile` may answer it at `date`: the profile as it is then decides,
  /// by its targeting and by its quota cells where they are made of the profile alone (a member
  /// who fits no cell is not wanted).
  public func eligibility(of profile: Profile?, at date: Date) -> Eligibility {
    let targeted = targeting?.eligibility(of: profile, at: date) ?? .eligible
    guard targeted == .eligible, let cells, !cells.dimensions.contains(where: { if case .screening = $0 { true } else { false } }) else {
      return targeted
    }
    guard let profile else { return .needsProfile }
    return cells.cell(of: profile, at: date, screening: []) == nil ? .outsideTarget : .eligible
  }

  /// Points per minute of answering.
  public func rewardEfficiency() -> Double {
    guard estimatedMinutes > 0 else { return 0 }
    return Double(reward.value) / Double(estimatedMinutes)
  }

  /// Checks a draft against every question shown (a question's condition decides, from the
  /// answers before it and the screening's `screening`): the answers when all are valid,
  /// otherwise why each invalid question failed.
  public func validateAnswers(_ draft: AnswerDraft, screening: [SurveyAnswer] = []) -> Result<[SurveyAnswer], AnswerErrors> {
    Self.validateShown(draft, against: questions, earlier: screening)
  }

}

/// What a survey is about.
public enum SurveyCategory: String, Codable, CaseIterable, Sendable {
  case food, lifestyle, travel, technology, money, entertainment, health

  /// The name shown to users.
  public var title: String {
    switch self {
    case .food: "食品・飲料"
    case .lifestyle: "暮らし"
    case .travel: "旅行・おでかけ"
    case .technology: "IT・家電"
    case .money: "マネー"
    case .entertainment: "エンタメ"
    case .health: "健康・美容"
    }
  }
}

extension Array where Element == Survey {
  /// The surveys of `category`; all of them when there is none. The one filter behind every
  /// catalog's `fetchByCategory` and the list a request hands in.
  public func filtered(by category: SurveyCategory?) -> [Survey] {
    guard let category else { return self }
    return filter { $0.category == category }
  }
}

/// How the survey list is ordered.
public enum SurveySort: String, Codable, CaseIterable, Sendable {
  case newest, reward, efficiency

  public var title: String {
    switch self {
    case .newest: "新着順"
    case .reward: "ポイント順"
    case .efficiency: "1分あたり"
    }
  }

  /// Orders surveys; ties keep the catalog's order by id so that pages are stable.
  public func sorted(_ surveys: consuming [Survey]) -> [Survey] {
    var surveys = surveys  // sorted in place when the caller hands over its only copy
    surveys.sort { lhs, rhs in
      switch self {
      case .newest where lhs.publishedAt != rhs.publishedAt: lhs.publishedAt > rhs.publishedAt
      case .reward where lhs.reward != rhs.reward: lhs.reward > rhs.reward
      case .efficiency where lhs.rewardEfficiency() != rhs.rewardEfficiency():
        lhs.rewardEfficiency() > rhs.rewardEfficiency()
      default: lhs.id.rawValue < rhs.id.rawValue
      }
    }
    return surveys
  }
}
