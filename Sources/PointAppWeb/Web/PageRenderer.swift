import Foundation
import Mustache
import PointApp
import Synchronization

/// Renders the Mustache templates of `Templates/`.
public struct PageRenderer: Sendable {
  /// Every template a page may use; all must exist at start-up.
  static let templateNames = [
    "layout", "error", "surveys", "survey-filters", "survey-row", "survey", "complete", "points", "history", "missions", "exchange",
  ]

  private let library: MustacheLibrary
  private let fragments = Fragments()

  /// Loads the templates; throws when the folder or any template is missing (the library itself
  /// would silently render nothing).
  public init(directory: URL) async throws {
    library = try await MustacheLibrary(directory: directory.path)
    let missing = Self.templateNames.filter { library.getTemplate(named: $0) == nil }
    guard missing.isEmpty else {
      throw TemplateError(message: "missing templates in \(directory.path): \(missing.joined(separator: ", "))")
    }
  }

  /// Renders one page from its context.
  public func render(_ template: String, _ context: [String: Any]) -> String {
    guard let html = library.render(context, withTemplate: template) else {
      preconditionFailure("template \(template) was checked at start-up")
    }
    return html
  }

  /// A survey's card in the list (a list item). Cards depend on the survey and on whether it was
  /// answered only, so each is rendered once and kept (the list page would otherwise spend most of
  /// its time in the template engine, rendering the same cards for every user).
  public func surveyRow(_ survey: Survey, answered: Bool) -> String {
    fragments.html("\(answered ? 1 : 0)\(survey.id.rawValue)", of: .card(survey, answered: answered)) {
      render("survey-row", Pages.surveyRow(survey, answered: answered))
    }
  }

  /// The list's category and sort links: one of a few dozen, each rendered once and kept.
  public func surveyFilters(category: SurveyCategory?, sort: SurveySort) -> String {
    fragments.html("\(category?.rawValue ?? "")?\(sort.rawValue)", of: .filters(category, sort)) {
      render("survey-filters", Pages.surveyFilters(category: category, sort: sort))
    }
  }

  /// Rendered parts of pages by name, each kept with what it was rendered from, so that a part is
  /// rendered again when that changes (a survey edited in the catalog).
  private final class Fragments: Sendable {
    enum Input: Equatable {
      case card(Survey, answered: Bool)
      case filters(SurveyCategory?, SurveySort)
    }

    private let kept = Mutex<[String: (input: Input, html: String)]>([:])

    /// The part named `key` rendered from `input`: the one kept, or `render()`'s, then kept. At
    /// most 1,000 parts are kept (a catalog is a few dozen surveys); past that, it starts again.
    func html(_ key: String, of input: Input, render: () -> String) -> String {
      if let html = kept.withLock({ $0[key].flatMap { $0.input == input ? $0.html : nil } }) { return html }
      let html = render()
      kept.withLock { kept in
        if kept.count >= 1_000 { kept.removeAll() }
        kept[key] = (input, html)
      }
      return html
    }
  }

  public struct TemplateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }
}
