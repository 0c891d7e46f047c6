/// One question of a survey.
public struct SurveyQuestion: Codable, Equatable, Identifiable, Sendable {
  public let id: QuestionID
  public let text: String
  public let kind: Kind
  /// When it is shown (表示条件); absent: always.
  public let condition: DisplayCondition?
  /// Absent: its options in their order; `true`: in an order of each respondent's own, 「その他」
  /// and the like kept last.
  public let shuffle: Bool?

  public init(id: QuestionID, text: String, kind: Kind, condition: DisplayCondition? = nil, shufflesChoices: Bool = false) {
    self.id = id
    self.text = text
    self.kind = kind
    self.condition = condition
    self.shuffle = shufflesChoices ? true : nil
  }

  /// Whether each respondent gets its options in an order of their own (a single or multiple
  /// choice's: a grid's scale and an attention check keep theirs).
  public var shufflesChoices: Bool {
    switch kind {
    case .singleChoice, .multipleChoice: shuffle == true
    default: false
    }
  }

  public enum Kind: Codable, Equatable, Sendable {
    case singleChoice(choices: [Choice])
    case multipleChoice(choices: [Choice], minPicks: Int, maxPicks: Int)
    case freeText(required: Bool, maxLength: Int)
    /// 1 (worst) to 5 (best).
    case rating
    /// A matrix: each row answered on one shared scale, every row required unless optional.
    case grid(rows: [GridRow], scale: [Choice])
    /// A whole number from `min` to `max`, in `unit` (分, 千円) when given; full-width digits and
    /// thousands separators are read too.
    case number(min: Int, max: Int, unit: String?)
    /// Required free text of `minLength` to `maxLength` characters.
    case longText(minLength: Int, maxLength: Int)
    /// An instructed answer (「この設問では『あてはまらない』を選んでください」), shown as a single choice: a
    /// different pick is a valid answer, and a sign of an inattentive one.
    case attentionCheck(choices: [Choice], expected: ChoiceID)
  }

  /// A row of a grid question, named by id in forms (`q[<question>][<row>]`).
  public struct GridRow: Codable, Equatable, Identifiable, Sendable {
    public let id: String
    public let label: String
    /// Absent in the catalog: required.
    public let isOptional: Bool?

    public init(id: String, label: String, isOptional: Bool? = nil) {
      self.id = id
      self.label = label
      self.isOptional = isOptional
    }
  }

  /// The draft value of one grid row, as forms send it: `<row>:<choice>`.
  public static func gridInput(row: String, choice: String) -> String { "\(row):\(choice)" }

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
    case let .grid(rows, scale):
      var picked: [String: String] = [:]
      for input in inputs {
        guard let colon = input.firstIndex(of: ":") else { return .failure(.unknownChoice) }
        let (row, choice) = (String(input[..<colon]), String(input[input.index(after: colon)...]))
        guard rows.contains(where: { $0.id == row }), scale.contains(where: { $0.id.rawValue == choice }) else {
          return .failure(.unknownChoice)
        }
        guard picked[row] == nil || picked[row] == choice else { return .failure(.tooManyPicks(max: 1)) }
        picked[row] = choice
      }
      let missing = rows.filter { picked[$0.id] == nil && $0.isOptional != true }
      guard missing.isEmpty else { return .failure(.rowsUnanswered(missing.map(\.label))) }
      let cells = rows.compactMap { row in picked[row.id].map { GridCell(row: row.id, choice: ChoiceID($0)) } }
      return .success(cells.isEmpty ? nil : .grid(cells))
    case let .number(min, max, _):
      guard let input = inputs.first else { return .failure(.required) }
      let digits = Profile.halfWidthDigits(input).trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
      guard inputs.count == 1, !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits) else { return .failure(.notANumber) }
      guard (min...max).contains(number) else { return .failure(.outOfRange(min: min, max: max)) }
      return .success(.number(number))
    case let .longText(minLength, maxLength):
      let text = inputs.first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
      if text.isEmpty { return .failure(.required) }
      guard text.count >= minLength else { return .failure(.tooShort(min: minLength)) }
      guard text.count <= maxLength else { return .failure(.tooLong(max: maxLength)) }
      return .success(.text(text))
    case let .attentionCheck(choices, _):
      guard let input = inputs.first else { return .failure(.required) }
      guard inputs.count == 1 else { return .failure(.tooManyPicks(max: 1)) }
      guard choices.contains(where: { $0.id.rawValue == input }) else { return .failure(.unknownChoice) }
      return .success(.choice(ChoiceID(input)))
    }
  }
}
