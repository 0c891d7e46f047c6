import Foundation

/// 割付: completes wanted per cell, a combination of profile attributes or screening answers
/// (性別 × 年代: six cells of 50). Each cell is a quota of its own beside the survey's overall
/// one; a respondent belongs to at most one cell, and one who fits none is not wanted.
public struct QuotaCells: Codable, Equatable, Sendable {
  /// What a cell is made of.
  public enum Dimension: Hashable, Sendable, Codable, RawRepresentable {
    /// The profile's gender (`Gender`'s raw values).
    case gender
    /// The profile's age, by decade, at the moment of answering (`20` for 20 to 29).
    case ageBand
    /// A screening single choice's answer (the choice's id).
    case screening(QuestionID)

    public init?(rawValue: String) {
      switch rawValue {
      case "gender": self = .gender
      case "ageBand": self = .ageBand
      case _ where rawValue.hasPrefix("s:") && rawValue.count > 2: self = .screening(QuestionID(String(rawValue.dropFirst(2))))
      default: return nil
      }
    }

    public var rawValue: String {
      switch self {
      case .gender: "gender"
      case .ageBand: "ageBand"
      case let .screening(id): "s:\(id.rawValue)"
      }
    }

    public var title: String {
      switch self {
      case .gender: "性別"
      case .ageBand: "年代"
      case .screening: "事前調査の回答"
      }
    }
  }

  /// One combination, with the completes it takes.
  public struct Cell: Codable, Equatable, Sendable {
    /// A value per dimension, in the dimensions' order.
    public let values: [String]
    public let limit: Int

    public init(values: [String], limit: Int) {
      self.values = values
      self.limit = limit
    }

    /// Its name in the quota's records and the forms: its values joined by `-`.
    public var name: String { values.joined(separator: "-") }
  }

  public let dimensions: [Dimension]
  public let cells: [Cell]

  public init(dimensions: [Dimension], cells: [Cell]) {
    self.dimensions = dimensions
    self.cells = cells
  }

  /// The cell of a respondent with `profile` at `date` and these screening answers; `nil` when
  /// they fit none (or a dimension is unknown: no profile).
  public func cell(of profile: Profile?, at date: Date, screening: [SurveyAnswer]) -> Cell? {
    var values: [String] = []
    for dimension in dimensions {
      switch dimension {
      case .gender:
        guard let profile else { return nil }
        values.append(profile.gender.rawValue)
      case .ageBand:
        guard let profile else { return nil }
        values.append(String(SurveyResponse.ageBand(of: profile.age(at: date))))
      case let .screening(id):
        guard case let .choice(choice)? = screening.first(where: { $0.questionID == id })?.value else { return nil }
        values.append(choice.rawValue)
      }
    }
    return cells.first { $0.values == values }
  }

  /// A cell as operators read it, and as the editor writes it: `女性 × 30代`.
  public func label(of cell: Cell, in survey: Survey) -> String {
    zip(dimensions, cell.values).map { dimension, value in
      switch dimension {
      case .gender: Gender(rawValue: value)?.title ?? value
      case .ageBand: "\(value)代"
      case let .screening(id): survey.screening?.questions.first { $0.id == id }?.choices.first { $0.id.rawValue == value }?.label ?? value
      }
    }.joined(separator: " × ")
  }
}
