import Foundation
import Mustache
import PointApp
import Synchronization

/// Renders the Mustache templates of `Templates/`.
public struct PageRenderer: Sendable {
  /// Every template a page may use; all must exist at start-up.
  static let templateNames = [
    "layout", "error", "surveys", "survey-row", "survey", "complete", "points", "history", "missions", "exchange",
  ]

  private let library: MustacheLibrary
  private let rows = RowCache()

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

  /// A survey's card in the list. Cards depend on the survey and on whether it was answered only,
  /// so each is rendered once and kept (the list page would otherwise spend most of its time in
  /// the template engine, rendering the same cards for every user).
  public func surveyRow(_ survey: Survey, answered: Bool) -> String {
    if let html = rows.html(for: survey, answered: answered) { return html }
    let html = render("survey-row", Pages.surveyRow(survey, answered: answered))
    rows.keep(html, for: survey, answered: answered)
    return html
  }

  /// Rendered cards by survey id and answered state, each with the survey it was rendered from.
  private final class RowCache: Sendable {
    private let cards = Mutex<[String: (survey: Survey, html: String)]>([:])

    func html(for survey: Survey, answered: Bool) -> String? {
      cards.withLock { cards in
        guard let card = cards[key(survey, answered)], card.survey == survey else { return nil }
        return card.html
      }
    }

    /// Keeps at most 1,000 cards (a catalog is a few dozen surveys); past that, starts again.
    func keep(_ html: String, for survey: Survey, answered: Bool) {
      cards.withLock { cards in
        if cards.count >= 1_000 { cards.removeAll() }
        cards[key(survey, answered)] = (survey, html)
      }
    }

    private func key(_ survey: Survey, _ answered: Bool) -> String { "\(answered ? 1 : 0)\(survey.id.rawValue)" }
  }

  public struct TemplateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }
}
