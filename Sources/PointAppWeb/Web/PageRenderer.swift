import Foundation
import Mustache

/// Renders the Mustache templates of `Templates/`.
public struct PageRenderer: Sendable {
  /// Every template a page may use; all must exist at start-up.
  static let templateNames = [
    "layout", "error", "surveys", "survey", "complete", "points", "history", "missions", "exchange",
  ]

  private let library: MustacheLibrary

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

  public struct TemplateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }
}
