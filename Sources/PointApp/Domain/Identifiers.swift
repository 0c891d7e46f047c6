import Foundation

/// A typed identifier: an id of one kind of thing cannot be passed where another's is expected.
public struct Identifier<Owner, RawValue: Hashable & Codable & Sendable>: Hashable, Codable, Sendable {
  public let rawValue: RawValue

  public init(_ rawValue: RawValue) { self.rawValue = rawValue }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(RawValue.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension Identifier: CustomStringConvertible {
  public var description: String { "\(rawValue)" }
}

extension Identifier: CodingKeyRepresentable where RawValue == String {
  public var codingKey: any CodingKey { Key(stringValue: rawValue) }
  public init?<T: CodingKey>(codingKey: T) { self.init(codingKey.stringValue) }

  private struct Key: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}

public typealias SurveyID = Identifier<Survey, String>
public typealias QuestionID = Identifier<SurveyQuestion, String>
public typealias ChoiceID = Identifier<SurveyQuestion.Choice, String>
public typealias TransactionID = Identifier<PointTransaction, UUID>
