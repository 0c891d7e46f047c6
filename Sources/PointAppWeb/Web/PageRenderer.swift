import Crypto
import Foundation
import Hummingbird
import Mustache
import PointApp
import Synchronization

/// Renders the Mustache templates of `Templates/`.
public struct PageRenderer: Sendable {
  /// Every template a page may use; all must exist at start-up.
  static let templateNames = [
    "layout", "console-layout", "current-tab", "error", "console-error", "error-card", "surveys", "survey-filters", "survey-row", "survey", "survey-question", "complete", "points", "rank-conditions", "history", "missions", "exchange", "confirmation",
    "profile", "survey-ineligible", "screened-out", "survey-invalid", "admin-login", "admin-surveys", "admin-audit",
    "verify-address", "mail-verification", "mail-footer", "password-forgot", "password-reset", "mail-password-reset",
  ]

  private let library: MustacheLibrary
  private let cards = Kept<CardKey, Survey, String>(capacity: 1_000)
  private let questions = Kept<QuestionKey, SurveyQuestion, String>(capacity: 1_000)
  /// The list page with the member's own values left out (`surveysPage`): some 15 kB each.
  private let lists = Kept<ListKey, [Survey], KeptList>(capacity: 64)
  private let filters: [Filter: String]
  /// The points page's list of every rank and what it takes (`rank-conditions`), the same for
  /// everyone: rendered at start-up.
  public let rankConditions: String

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
    rankConditions = Self.fragment("rank-conditions", Pages.rankConditions(), in: library)
  }

  /// Renders one page from its context.
  public func render(_ template: String, _ context: [String: Any]) -> String {
    Self.render(template, context, in: library)
  }

  private static func render(_ template: String, _ context: [String: Any], in library: MustacheLibrary) -> String {
    guard let html = library.render(context, withTemplate: template) else {
      preconditionFailure("template \(template) was checked at start-up")
    }
    return html
  }

  /// A part of a page, without its last line break: the page's line that shows it ends it.
  private static func fragment(_ template: String, _ context: [String: Any], in library: MustacheLibrary) -> String {
    var html = render(template, context, in: library)
    if html.last == "\n" { html.removeLast() }
    return html
  }

  /// `path` with a version that changes with `contents` (`/styles.css?v=…`): a changed file gets a
  /// new URL, so browsers may keep each version for as long as they like.
  public static func versionedURL(_ path: String, of contents: Data) -> String {
    "\(path)?v=" + hex(SHA256.hash(data: contents).prefix(6))
  }

  /// The list page (`surveys`). Everything on it but the member's own address and balance is the
  /// same for every member shown the same cards (the same filters, the same surveys, answered and
  /// new alike), so it is rendered once per such list with those two left as holes (`Holed`), and
  /// each view fills them in: the template engine's name look-ups were a fifth of a list view's
  /// time. A list is cut the second time it is seen (`KeptList`). A page with a message (flash) on
  /// it is rendered whole. Its bytes, as they are sent: a kept page's pieces are bytes too, copied
  /// once and never checked again as text.
  public func surveysPage(_ state: AppFeature.State) -> ByteBuffer {
    guard state.flash == nil else { return ByteBuffer(string: render("surveys", Pages.surveys(state, fragments: self))) }
    let page = state.surveyList.page
    let key = ListKey(state)
    let sources = page.surveys + page.closedSurveys
    let own = Holed.Values(account: state.account.map { HTMLEscaping.escape($0.value) }, balance: HTMLEscaping.escape("\(state.progress.ledger.balance)"))
    let kept = lists.value(for: [key], from: [sources])[0]
    if case let .cut(holed)? = kept { return holed.filled(with: own) }
    // The cards' keys are the list's: worked out once.
    let context = Pages.surveys(state, fragments: self, key: key)
    let whole = { ByteBuffer(string: self.render("surveys", context)) }
    // Seen for the first time, a list is only noted: most lists are one member's, and cutting
    // one costs as much again as rendering it. Seen again, it is cut.
    guard let kept else {
      lists.keep(.seen, as: key, from: sources)
      return whole()
    }
    guard case .seen = kept else { return whole() }
    // A name that neither the key nor a hole accounts for (one added to the page or its layout)
    // would show the first member's value to the others; a hole more than the layout makes is a
    // mark in the catalog's text. Either list is rendered whole from then on.
    var marked = context
    if state.account != nil { marked["account"] = Holed.Hole.account.mark }
    marked["balance"] = Holed.Hole.balance.mark
    guard Set(context.keys).isSubset(of: Self.listNames),
      let holed = Holed(render("surveys", marked), expecting: state.account != nil ? [.account: 2, .balance: 1] : [.balance: 1])
    else {
      lists.keep(.whole, as: key, from: sources)
      return whole()
    }
    lists.keep(.cut(holed), as: key, from: sources)
    return holed.filled(with: own)
  }

  /// What is kept of a list page (`surveysPage`).
  enum KeptList: Sendable {
    /// Seen once, not cut.
    case seen
    /// Cut at its holes.
    case cut(Holed)
    /// Not to be cut: always rendered whole.
    case whole
  }

  /// A page rendered with marks where a member's own values go, cut at them: its text is the
  /// pieces with each member's values between them.
  struct Holed: Sendable {
    enum Hole: CaseIterable, Sendable {
      case account, balance

      /// What the page is rendered with in its place: a Unicode noncharacter (U+FDD0, U+FDD1),
      /// which no text exchanged is meant to hold, and which HTML escaping leaves as it is.
      var mark: String { String(decoding: Self.lead + [last], as: UTF8.self) }

      /// The mark's UTF-8: the two bytes both start with (the first only ever starts a
      /// character), then its own.
      static let lead: [UInt8] = [0xEF, 0xB7]
      var last: UInt8 { self == .account ? 0x90 : 0x91 }
    }

    /// A member's own values, escaped as the template would.
    struct Values {
      let account: String?
      let balance: String
    }

    let pieces: [ByteBuffer]
    let holes: [Hole]

    /// `nil` unless the page has exactly the holes expected of each kind.
    init?(_ page: String, expecting expected: [Hole: Int]) {
      var page = page
      let cut: (pieces: [ByteBuffer], holes: [Hole]) = page.withUTF8 { bytes in
        var (pieces, holes, start, index) = ([ByteBuffer](), [Hole](), 0, 0)
        while let lead = bytes[index...].firstIndex(of: Hole.lead[0]) {
          index = lead + 1
          guard lead + 2 < bytes.count, bytes[lead + 1] == Hole.lead[1],
            let hole = Hole.allCases.first(where: { $0.last == bytes[lead + 2] })
          else { continue }
          pieces.append(ByteBuffer(bytes: UnsafeBufferPointer(rebasing: bytes[start..<lead])))
          holes.append(hole)
          start = lead + 3
          index = start
        }
        pieces.append(ByteBuffer(bytes: UnsafeBufferPointer(rebasing: bytes[start...])))
        return (pieces, holes)
      }
      guard Dictionary(cut.holes.map { ($0, 1) }, uniquingKeysWith: +) == expected else { return nil }
      (pieces, holes) = cut
    }

    func filled(with values: Values) -> ByteBuffer {
      var page = ByteBuffer()
      page.reserveCapacity(pieces.reduce(64) { $0 + $1.readableBytes } + (values.account?.utf8.count ?? 0) * 2)
      for (index, piece) in pieces.enumerated() {
        page.writeImmutableBuffer(piece)
        guard index < holes.count else { break }
        switch holes[index] {
        case .account: page.writeString(values.account ?? "")
        case .balance: page.writeString(values.balance)
        }
      }
      return page
    }
  }

  /// The list's cards (list items), joined; `keys` are the cards' (`ListKey`'s). A card depends on
  /// its survey and on its marks only (answered, new, closed), so each is rendered once and kept
  /// (the list page would otherwise spend most of its time in the template engine, rendering the
  /// same cards for every user).
  func surveyRows(_ surveys: [Survey], keys: [CardKey]) -> String {
    let kept = cards.value(for: keys, from: surveys)
    var list = ""
    list.reserveCapacity(kept.reduce(0) { $0 + ($1?.utf8.count ?? 1_024) })
    for index in surveys.indices {
      if let html = kept[index] {
        list += html
      } else {
        let key = keys[index]
        let html = render("survey-row", Pages.surveyRow(surveys[index], answered: key.answered, closed: key.closed, isNew: key.isNew))
        cards.keep(html, as: key, from: surveys[index])
        list += html
      }
    }
    return list
  }

  /// A survey page's questions (`survey-question`), numbered from `first`, each without its last
  /// line break, which the page writes. A question the user has neither answered nor been refused
  /// on is the same for everyone who sees it at that number, so it is rendered once and kept (a
  /// question is some fifty names looked up in the template engine, 0.6 to 1.6 µs each); one whose
  /// choices each respondent sees in an order of their own is not.
  public func surveyQuestions(
    _ questions: [SurveyQuestion], of survey: SurveyID, numberedFrom first: Int, draft: AnswerDraft, errors: [QuestionID: AnswerError]
  ) -> [(number: Int, html: String)] {
    let keys = questions.indices.map { QuestionKey(survey: survey, question: questions[$0].id, number: first + $0) }
    let kept = self.questions.value(for: keys, from: questions)
    return questions.indices.map { index in
      let (question, number) = (questions[index], keys[index].number)
      let (answers, error) = (draft[question.id] ?? [], errors[question.id])
      let shared = answers.isEmpty && error == nil && !question.shufflesChoices
      if shared, let html = kept[index] { return (number, html) }
      let html = Self.fragment("survey-question", Pages.question(question, number: number, draft: answers, error: error), in: library)
      if shared { self.questions.keep(html, as: keys[index], from: question) }
      return (number, html)
    }
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

  struct CardKey: Hashable {
    let id: SurveyID
    let answered: Bool
    let isNew: Bool
    let closed: Bool
  }

  /// The names of a list page's context that its key (`ListKey`) and holes account for; the page
  /// (`Pages.surveys`) and its layout (`Pages.layout`) give no other.
  static let listNames: Set<String> = [
    "filters", "list", "closedList", "hasSurveys", "loadFailed", "needsProfile",  // the key
    "account", "balance",  // the holes
    "flash",  // rendered whole
  ]

  /// What a list page shows besides the member's own values.
  struct ListKey: Hashable {
    private let filter: Filter
    let open: [CardKey]
    let closed: [CardKey]
    private let loadFailed: Bool
    private let needsProfile: Bool
    private let signedIn: Bool

    init(_ state: AppFeature.State) {
      let list = state.surveyList
      let page = list.page
      filter = Filter(category: page.category, sort: page.sort)
      open = page.surveys.map { CardKey(id: $0.id, answered: list.isAnswered($0), isNew: page.newSurveys.contains($0.id), closed: false) }
      closed = page.closedSurveys.map { CardKey(id: $0.id, answered: list.isAnswered($0), isNew: false, closed: true) }
      loadFailed = page.loadFailed
      needsProfile = page.surveysNeedProfile
      signedIn = state.account != nil
    }
  }

  private struct QuestionKey: Hashable {
    let survey: SurveyID
    let question: QuestionID
    let number: Int
  }

  /// Rendered fragments (the list's cards, a survey's questions, list pages), each kept with what
  /// it was rendered from, so that a survey edited in the catalog, or a draft in the editor, gets
  /// a new one.
  private final class Kept<Key: Hashable & Sendable, Source: Equatable & Sendable, Value: Sendable>: Sendable {
    private let kept = Mutex<[Key: (source: Source, value: Value)]>([:])
    private let capacity: Int

    /// Keeps at most `capacity` (a catalog is a few dozen surveys of a few questions); past that,
    /// starts again.
    init(capacity: Int) {
      self.capacity = capacity
    }

    /// The kept value of each key made from the source beside it, `nil` where none is
    /// kept (one lock for a whole list).
    func value(for keys: [Key], from sources: [Source]) -> [Value?] {
      kept.withLock { kept in
        zip(keys, sources).map { key, source in kept[key].flatMap { $0.source == source ? $0.value : nil } }
      }
    }

    func keep(_ value: Value, as key: Key, from source: Source) {
      kept.withLock { kept in
        if kept.count >= capacity { kept.removeAll() }
        kept[key] = (source, value)
      }
    }
  }

  public struct TemplateError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }
}
