import Foundation

/// A survey of the catalog: what it asks, what it pays and until when.
public struct Survey: Codable, Equatable, Identifiable, Sendable {
  public let id: SurveyID
  public let title: String
  public let description: String
  public let category: SurveyCategory
  public let questions: [SurveyQuestion]
  public let reward: PointAmount
  public let estimatedMinutes: Int
  public let publishedAt: Date
  /// `nil`: open without end.
  public let expiresAt: Date?

  public init(
    id: SurveyID, title: String, description: String, category: SurveyCategory,
    questions: [SurveyQuestion], reward: PointAmount, estimatedMinutes: Int,
    publishedAt: Date, expiresAt: Date?
  ) {
    self.id = id
    self.title = title
    self.description = description
    self.category = category
    self.questions = questions
    self.reward = reward
    self.estimatedMinutes = estimatedMinutes
    self.publishedAt = publishedAt
    self.expiresAt = expiresAt
  }

  /// Whether the survey can be answered at `date`.
  public func isAvailable(at date: Date) -> Bool {
    publishedAt <= date && expiresAt.map { date < $0 } ?? true
  }

  /// Points per minute of answering.
  public func rewardEfficiency() -> Double {
    guard estimatedMinutes > 0 else { return 0 }
    return Double(reward.value) / Double(estimatedMinutes)
  }

  /// Checks a draft against every question: the answers when all are valid, otherwise why each
  /// invalid question failed.
  public func validateAnswers(_ draft: AnswerDraft) -> Result<[SurveyAnswer], AnswerErrors> {
    var answers: [SurveyAnswer] = []
    var errors: [QuestionID: AnswerError] = [:]
    for question in questions {
      switch question.answer(from: draft[question.id] ?? []) {
      case let .success(value?): answers.append(SurveyAnswer(questionID: question.id, value: value))
      case .success(nil): break
      case let .failure(error): errors[question.id] = error
      }
    }
    return errors.isEmpty ? .success(answers) : .failure(AnswerErrors(byQuestion: errors))
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
  public func sorted(_ surveys: [Survey]) -> [Survey] {
    surveys.sorted { lhs, rhs in
      switch self {
      case .newest where lhs.publishedAt != rhs.publishedAt: lhs.publishedAt > rhs.publishedAt
      case .reward where lhs.reward != rhs.reward: lhs.reward > rhs.reward
      case .efficiency where lhs.rewardEfficiency() != rhs.rewardEfficiency():
        lhs.rewardEfficiency() > rhs.rewardEfficiency()
      default: lhs.id.rawValue < rhs.id.rawValue
      }
    }
  }
}
