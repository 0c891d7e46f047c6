/// One question of a survey.
public struct SurveyQuestion: Codable, Equatable, Identifiable, Sendable {
  public let id: QuestionID
  public let text: String
  public let kind: Kind

  public init(id: QuestionID, text: String, kind: Kind) {
    self.id = id
    self.text = text
    self.kind = kind
  }

  public enum Kind: Codable, Equatable, Sendable {
    case singleChoice(choices: [Choice])
    case multipleChoice(choices: [Choice], minPicks: Int, maxPicks: Int)
    case freeText(required: Bool, maxLength: Int)
    /// 1 (worst) to 5 (best).
    case rating
  }

  /// An option of a choice question, named by id in forms.
  public struct Choice: Codable, Equatable, Identifiable, Sendable {
    public let id: ChoiceID
    public let label: String

    public init(id: ChoiceID, label: String) {
      self.id = id
      self.label = label
    }
  }

  /// Turns the raw inputs a form sent for this question into an answer; `nil` when an optional
  /// question was left empty.
  func answer(from inputs: [String]) -> Result<SurveyAnswer.Value?, AnswerError> {
    let inputs = inputs.filter { !$0.isEmpty }
    switch kind {
    case let .singleChoice(choices):
      guard let input = inputs.first else { return .failure(.required) }
      guard inputs.count == 1 else { return .failure(.tooManyPicks(max: 1)) }
      guard choices.contains(where: { $0.id.rawValue == input }) else { return .failure(.unknownChoice) }
      return .success(.choice(ChoiceID(input)))
    case let .multipleChoice(choices, minPicks, maxPicks):
      let picked = Array(Set(inputs)).sorted()
      guard picked.allSatisfy({ input in choices.contains { $0.id.rawValue == input } }) else {
        return .failure(.unknownChoice)
      }
      if picked.isEmpty, minPicks > 0 { return .failure(.required) }
      guard picked.count >= minPicks else { return .failure(.tooFewPicks(min: minPicks)) }
      guard picked.count <= maxPicks else { return .failure(.tooManyPicks(max: maxPicks)) }
      return .success(picked.isEmpty ? nil : .choices(picked.map(ChoiceID.init)))
    case let .freeText(required, maxLength):
      let text = inputs.first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
      if text.isEmpty { return required ? .failure(.required) : .success(nil) }
      guard text.count <= maxLength else { return .failure(.tooLong(max: maxLength)) }
      return .success(.text(text))
    case .rating:
      guard let input = inputs.first else { return .failure(.required) }
      guard inputs.count == 1, let rating = Int(input), (1...5).contains(rating) else {
        return .failure(.invalidRating)
      }
      return .success(.rating(rating))
    }
  }
}
