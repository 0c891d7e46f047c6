import Foundation

/// A survey being edited in the console: its form as last saved, kept until it is published or
/// discarded. A survey that was never published is only this (下書き).
public struct EditorDraft: Codable, Equatable, Sendable {
  public let id: SurveyID
  public var form: SurveyForm
  /// Whether its mistakes are shown: once a preview or a publication was asked for.
  public var isChecked: Bool
  public var savedAt: Date

  public init(id: SurveyID, form: SurveyForm, isChecked: Bool = false, savedAt: Date) {
    self.id = id
    self.form = form
    self.isChecked = isChecked
    self.savedAt = savedAt
  }
}
