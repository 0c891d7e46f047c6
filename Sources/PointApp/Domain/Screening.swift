/// 事前調査: the questions a survey asks first, to find the people it is for. Answers that do not
/// qualify end the survey there, with a small consolation award, paid once; qualifying answers
/// lead on to the survey's own questions.
public struct Screening: Codable, Equatable, Sendable {
  /// Choice questions.
  public let questions: [SurveyQuestion]
  /// Per question, the picks that qualify: a question passes when one of its picks is among
  /// them. A question without an entry passes whatever is picked.
  public let qualifying: [QuestionID: [ChoiceID]]
  /// What a person screened out is paid, once.
  public let consolation: PointAmount

  public init(questions: [SurveyQuestion], qualifying: [QuestionID: [ChoiceID]], consolation: PointAmount) {
    self.questions = questions
    self.qualifying = qualifying
    self.consolation = consolation
  }

  /// The verdict on a screening form: its errors when it is not valid, else whether it qualifies.
  public func verdict(on draft: AnswerDraft) -> Result<ScreeningVerdict, AnswerErrors> {
    Survey.validateShown(draft, against: questions, earlier: []).map { answers in
      let passes = answers.allSatisfy { answer in
        guard let wanted = qualifying[answer.questionID] else { return true }
        switch answer.value {
        case let .choice(choice): return wanted.contains(choice)
        case let .choices(choices): return choices.contains(where: wanted.contains)
        case .text, .rating, .number, .grid: return true
        }
      }
      return passes ? .qualified(answers) : .screenedOut(answers)
    }
  }
}

public enum ScreeningVerdict: Equatable, Sendable {
  case qualified([SurveyAnswer])
  case screenedOut([SurveyAnswer])
}
