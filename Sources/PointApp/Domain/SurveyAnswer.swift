/// What a user answered to one question.
public struct SurveyAnswer: Codable, Equatable, Sendable {
  public let questionID: QuestionID
  public let value: Value

  public init(questionID: QuestionID, value: Value) {
    self.questionID = questionID
    self.value = value
  }

  public enum Value: Codable, Equatable, Sendable {
    case choice(ChoiceID)
    case choices([ChoiceID])
    case text(String)
    case rating(Int)
    case number(Int)
    /// A grid's answered rows, in the question's order.
    case grid([GridCell])
  }
}

/// One answered row of a grid question.
public struct GridCell: Codable, Equatable, Sendable {
  public let row: String
  public let choice: ChoiceID

  public init(row: String, choice: ChoiceID) {
    self.row = row
    self.choice = choice
  }
}

/// The raw inputs of an answer form, by question: what the user typed or picked, unchecked.
public typealias AnswerDraft = [QuestionID: [String]]

/// A survey's answers that were refused, kept with the user's data until the survey is answered,
/// so that its page (where the refused form leads, by a redirect) shows them again with their
/// errors, and Back or Refresh never re-sends a form.
///
/// A survey in pages (its conditions make them) keeps here the answers of the pages sent so far
/// and the page the user is on.
public struct SurveyDraft: Codable, Equatable, Sendable {
  public let surveyID: SurveyID
  public let answers: AnswerDraft
  /// The page the user is on (`Survey.pages`); absent: the first.
  public let page: Int?

  /// Keeps only the answers to `survey`'s questions (its screening's included): a forged form
  /// cannot grow the user's file.
  public init(_ answers: AnswerDraft, of survey: Survey, page: Int = 0) {
    surveyID = survey.id
    let questions = Set((survey.questions + (survey.screening?.questions ?? [])).map(\.id))
    self.answers = answers.filter { questions.contains($0.key) }
    self.page = page == 0 ? nil : page
  }
}

/// Why an answer was refused.
public enum AnswerError: Equatable, Sendable, Error {
  case required
  case unknownChoice
  case tooFewPicks(min: Int)
  case tooManyPicks(max: Int)
  case tooLong(max: Int)
  case invalidRating
  case tooShort(min: Int)
  case notANumber
  case outOfRange(min: Int, max: Int)
  /// The labels of the grid's rows left unanswered.
  case rowsUnanswered([String])

  /// The message shown under the question.
  public var message: String {
    switch self {
    case .required: "回答してください。"
    case .unknownChoice: "選択肢の中から選んでください。"
    case let .tooFewPicks(min): "\(min)つ以上選んでください。"
    case let .tooManyPicks(max): "\(max)つまで選べます。"
    case let .tooLong(max): "\(max)文字以内で入力してください。"
    case .invalidRating: "1〜5で評価してください。"
    case let .tooShort(min): "\(min)文字以上で入力してください。"
    case .notANumber: "数字で入力してください。"
    case let .outOfRange(min, max): "\(min)〜\(max)の範囲で入力してください。"
    case let .rowsUnanswered(rows): "未回答の行があります（\(rows.joined(separator: "、"))）。すべての行で1つずつ選んでください。"
    }
  }
}

/// The errors of a refused draft, by question.
public struct AnswerErrors: Equatable, Sendable, Error {
  public let byQuestion: [QuestionID: AnswerError]

  public init(byQuestion: [QuestionID: AnswerError]) { self.byQuestion = byQuestion }
}
