/// The console's survey list narrowed: by state (a `Survey.Status`, or `draft`) and by words found
/// in a survey's id or title.
public struct SurveyListFilter: Equatable, Sendable {
  /// `Survey.Status`'s raw value or `draft`; `nil`: every state.
  public var status: String?
  /// Words that must all appear in the id or the title (case and width as typed); empty: any.
  public var query: String

  public init(status: String? = nil, query: String = "") {
    self.status = status
    self.query = query
  }

  /// The states a list can be narrowed to, with their names.
  public static let statuses: [(value: String, title: String)] =
    [("draft", "下書き")] + [Survey.Status.scheduled, .open, .full, .closed].map { ($0.rawValue, $0.title) }

  /// Whether a survey of `status` with `id` and `title` is listed.
  public func includes(id: String, title: String, status: String) -> Bool {
    if let wanted = self.status, wanted != status { return false }
    let words = query.split(whereSeparator: { $0 == " " || $0 == "　" })
    return words.allSatisfy { id.localizedCaseInsensitiveContains($0) || title.localizedCaseInsensitiveContains($0) }
  }
}
