import Foundation

/// How carefully a survey must be answered to pay: research panels pay for careful answers only.
public struct QualitySettings: Codable, Equatable, Sendable {
  /// Faster than this per question, since the survey's questions were shown, is speeding.
  public let minSecondsPerQuestion: Int

  public init(minSecondsPerQuestion: Int) {
    self.minSecondsPerQuestion = minSecondsPerQuestion
  }
}

/// The signs of a careless answer.
public enum QualityCheck: String, Codable, CaseIterable, Sendable {
  /// Sent faster than the survey's minimum seconds per question.
  case speeding
  /// Every row of a grid of `AnswerQuality.straightLiningRows` rows or more given the same answer.
  case straightLining
  /// An instructed answer not given as instructed.
  case attention

  public var title: String {
    switch self {
    case .speeding: "回答が速すぎる"
    case .straightLining: "同じ選択肢の連続"
    case .attention: "指示と異なる回答"
    }
  }
}

public enum AnswerQuality {
  public static let straightLiningRows = 5

  /// The checks `answers` fail, in `QualityCheck`'s order. Speeding is checked only for a survey
  /// with quality settings; exactly the minimum is not speeding.
  public static func failedChecks(_ answers: [SurveyAnswer], to survey: Survey, openedAt: Date, submittedAt: Date) -> [QualityCheck] {
    var failed: [QualityCheck] = []
    if let quality = survey.quality,
      submittedAt.timeIntervalSince(openedAt) < Double(quality.minSecondsPerQuestion * survey.questions.count) {
      failed.append(.speeding)
    }
    let straightLined = answers.contains { answer in
      guard case let .grid(cells) = answer.value, cells.count >= straightLiningRows else { return false }
      return Set(cells.map(\.choice)).count == 1
    }
    if straightLined { failed.append(.straightLining) }
    let byQuestion = Dictionary(answers.map { ($0.questionID, $0.value) }) { first, _ in first }
    let inattentive = survey.questions.contains { question in
      guard case let .attentionCheck(_, expected) = question.kind else { return false }
      return byQuestion[question.id] != .choice(expected)
    }
    if inattentive { failed.append(.attention) }
    return failed
  }

  /// What a submission that fails `failed` gets: paid when it fails nothing; asked to review
  /// first; after that, refused as invalid when it still fails two checks or more.
  public static func verdict(_ failed: [QualityCheck], reviewRequested: Bool) -> QualityVerdict {
    if failed.isEmpty { return .accept }
    if !reviewRequested { return .askToReview }
    return failed.count >= 2 ? .reject : .accept
  }
}

public enum QualityVerdict: Equatable, Sendable {
  case accept
  case askToReview
  case reject
}
