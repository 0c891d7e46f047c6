import Crypto
import Foundation
import Mustache
import PointApp
import Synchronization

/// Renders the Mustache templates of `Templates/`.
public struct PageRenderer: Sendable {
  /// Every template a page may use; all must exist at start-up.
  static let templateNames = [
    "layout", "console-layout", "current-tab", "error", "console-error", "error-card", "surveys", "survey-filters", "survey-row", "survey", "complete", "points", "history", "missions", "exchange", "confirmation",
    "profile", "survey-ineligible", "screened-out", "survey-invalid", "admin-login", "admin-surveys", "admin-audit",
    "verify-address", "mail-verification", "mail-footer", "password-forgot", "password-reset", "mail-password-reset",
  ]

  private let library: MustacheLibrary
  private let cards = Cards()
  private let filters: [Filter: String]

  /// Loads the templates; throws when the folder or any template is missing (the library itself
  /// would silently render nothing). The layout links `stylesheet` as the partial
  /// `stylesheet-url`, made here: one URL for the life of the process, rather than a name every
  /// page's context carries and every page looks up.
  public init(directory: URL, stylesheet: String = "/styles.css") async throws {
    MustacheContentTypes.register(HTMLEscaping(), named: "HTML")  // before the templates are read
    var library = try await MustacheLibrary(directory: directory.path)
    // A URL has no braces; one that had would be read as a tag.
    guard !stylesheet.contains(where: { $0 == "{" || $0 == "}" }) else {
      throw TemplateError(message: "a stylesheet URL with a brace: \(stylesheet)")
    }
    library.register(try MustacheTemplate(string: HTMLEscaping.escape(stylesheet)), named: "stylesheet-url")
    self.library = library
    let missing = Self.templateNames.filter { library.getTemplate(named: $0) == nil }
    guard missing.isEmpty else {
      throw TemplateError(message: "missing templates in \(directory.path): \(missing.joined(separator: ", "))")
    }
    var filters: [Filter: String] = [:]
    for category in [nil] + SurveyCategory.allCases.map(Optional.some) {
      for sort in SurveySort.allCases {
        let context = Pages.surveyFilters(category: category, sort: sort)
        filters[Filter(category: category, sort: sort)] = library.render(context, withTemplate: "survey-filters") ?? ""
      }
    }
    self.filters = filters
  }

  /// Renders one page from its context.
  public func render(_ template: String, _ context: [String: Any]) -> String {
    guard let html = library.render(context, withTemplate: template) else {
      preconditionFailure("template \(template) was checked at start-up")
    }
    return html
  }

  /// `path` with a version that changes with `contents` (`/styles.css?v=…`): a changed file gets a
  /// new URL, so browsers may keep each version for as long as they like.
  public static func versionedURL(_ path: String, of contents: Data) -> String {
    "\(path)?v=" + hex(SHA256.hash(data: contents).prefix(6))
  }

  /// The list's cards (list items), joined. A card depends on its survey and on whether it was
  /// answered only, so each is rendered once and kept (the list page would otherwise spend most of
  /// its time in the template engine, rendering the same cards for every user).
  public func surveyRows(_ surveys: [Survey], answered: (Survey) -> Bool, closed: Bool = false, isNew: (Survey) -> Bool = { _ in false }) -> String {
    let answered = surveys.map(answered)
    let isNew = surveys.map(isNew)
    let kept = cards.html(for: surveys, answered: answered, isNew: isNew, closed: closed)
    var list = ""
    list.reserveCapacity(kept.reduce(0) { $0 + ($1?.utf8.count ?? 1_024) })
    for index in surveys.indices {
      if let html = kept[index] {
        list += html
      } else {
        let html = render("survey-row", Pages.surveyRow(surveys[index], answered: answered[index], closed: closed, isNew: isNew[index]))
        cards.keep(html, of: surveys[index], answered: answered[index], isNew: isNew[index], closed: closed)
        list += html
      }
    }
    return list
  }

  /// The list's category and sort links, the current ones marked: one of a few dozen, all
  /// rendered at start-up.
  public func surveyFilters(category: SurveyCategory?, sort: SurveySort) -> String {
    guard let html = filters[Filter(category: category, sort: sort)] else {
      preconditionFailure("every category and sort was rendered at start-up")
    }
    return html
  }

  private struct Filter: Hashable {
    let category: SurveyCategory?
    let sort: SurveySort
  }

  /// Rendered cards, each kept with the survey it was rendered from, so that a survey edited in the
  /// catalog gets a new card.
  private final class Cards: Sendable {
    private struct Key: Hashable {
      let id: SurveyID
      let answered: Bool
      let isNew: Bool
      let closed: Bool
    }

    private let kept = Mutex<[Key: (survey: Survey, html: String)]>([:])

    /// The kept cards of `surveys`, `nil` where none is kept (one lock for a whole list).
    func html(for surveys: [Survey], answered: [Bool], isNew: [Bool], closed: Bool) -> [String?] {
      kept.withLock { kept in
        surveys.indices.map { index in
          guard let card = kept[Key(id: surveys[index].id, answered: answered[index], isNew: isNew[index], closed: closed)], card.survey == surveys[index] else {
            return nil
          }
          return card.html
        }
      }
    }

    /// Keeps at most 1,000 cards (a catalog is a few dozen surveys); past that, starts again.
    func keep(_ html: String, of survey: Survey, answered: Bool, isNew: Bool, closed: Bool) {
      kept.withLock { kept in
        if kept.count >= 1_000 { kept.removeAll() }
        kept[Key(id: survey.id, answered: answered, isNew: isNew, closed: closed)] = (survey, html)
      }
    }
  }

  public struct TemplateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }
}
