/// 表示条件 (skip logic): a question shown only when earlier answers match its rules, all of them
/// (AND) or any (OR). A rule on a question that was not shown, or was left empty, is not met.
public struct DisplayCondition: Codable, Equatable, Sendable {
  public enum Join: String, Codable, CaseIterable, Sendable {
    /// Every rule is met (AND).
    case all
    /// At least one rule is met (OR).
    case any

    public var title: String {
      switch self {
      case .all: "すべての条件に一致（AND）"
      case .any: "いずれかの条件に一致（OR）"
      }
    }
  }

  /// One test of an earlier answer.
  public struct Rule: Codable, Equatable, Sendable {
    /// The earlier question (of the survey or its screening).
    public let question: QuestionID
    /// A grid's row whose answer is tested; `nil` for any other question.
    public let row: String?
    /// Met when one of these is picked (a choice, an attention check, a grid's row).
    public let choices: [ChoiceID]?
    /// Met by a number or rating from `min` to `max` (either end open).
    public let min: Int?
    public let max: Int?

    public init(question: QuestionID, row: String? = nil, choices: [ChoiceID]? = nil, min: Int? = nil, max: Int? = nil) {
      self.question = question
      self.row = row
      self.choices = choices
      self.min = min
      self.max = max
    }

    /// Whether `answer` (the question's, `nil` when it was not shown or left empty) meets it.
    public func isMet(by answer: SurveyAnswer.Value?) -> Bool {
      switch answer {
      case let .choice(choice)?: choices?.contains(choice) ?? false
      case let .choices(picked)?: picked.contains { choices?.contains($0) ?? false }
      case let .grid(cells)?: cells.contains { $0.row == row && (choices?.contains($0.choice) ?? false) }
      case let .number(value)?, let .rating(value)?:
        (min != nil || max != nil) && value >= (min ?? .min) && value <= (max ?? .max)
      case .text?, nil: false
      }
    }
  }

  public let join: Join
  public let rules: [Rule]

  public init(_ join: Join, _ rules: [Rule]) {
    self.join = join
    self.rules = rules
  }

  /// Whether the answers given so far (by question) call for the question.
  public func isMet(by answers: [QuestionID: SurveyAnswer.Value]) -> Bool {
    switch join {
    case .all: rules.allSatisfy { $0.isMet(by: answers[$0.question]) }
    case .any: rules.contains { $0.isMet(by: answers[$0.question]) }
    }
  }
}

/// Why a survey's logic cannot be published: each names the question it is about.
public enum LogicError: Equatable, Sendable, Error {
  /// A condition names a question that is not before it.
  case notEarlier(QuestionID, refersTo: QuestionID)
  /// A condition names an option or a row its question does not have (any more).
  case unknownOption(QuestionID, refersTo: QuestionID)
  /// A condition tests what its question's answer cannot be (a text, a range outside the
  /// question's, no option).
  case untestable(QuestionID, refersTo: QuestionID)
  /// No answers can ever show the question.
  case unreachable(QuestionID)
  /// A quota cell's dimension names a question that is not a screening single choice.
  case cellQuestion(QuestionID)
  /// A screening question has a condition: the screening is asked on one page, all of it.
  case conditionOnScreening(QuestionID)

  public var question: QuestionID {
    switch self {
    case let .notEarlier(id, _), let .unknownOption(id, _), let .untestable(id, _), let .unreachable(id), let .cellQuestion(id), let .conditionOnScreening(id): id
    }
  }

  /// The message, naming the questions by their place in the survey (`Q3`, `S1`).
  public func message(naming code: (QuestionID) -> String) -> String {
    switch self {
    case let .notEarlier(id, other): "\(code(id))の表示条件が、後ろにある\(code(other))を参照しています。条件には前の設問だけを使えます"
    case let .unknownOption(id, other): "\(code(id))の表示条件が、\(code(other))にない選択肢または行を参照しています"
    case let .untestable(id, other): "\(code(id))の表示条件が、\(code(other))の回答ではありえない値を参照しています"
    case let .unreachable(id): "\(code(id))はどの回答でも表示されません。表示条件を見直してください"
    case let .cellQuestion(id): "割付の軸にできるのは事前調査の単一選択だけです（\(code(id))）"
    case let .conditionOnScreening(id): "事前調査の設問（\(code(id))）には表示条件を付けられません"
    }
  }
}

extension Survey {
  /// Its screening's questions, then its own: every question a condition may name.
  public var allQuestions: [SurveyQuestion] { (screening?.questions ?? []) + questions }

  /// The code of a question as exports and messages name it: `S1` for the first screening
  /// question, `Q3` for the third of its own.
  public func code(of id: QuestionID) -> String {
    if let index = screening?.questions.firstIndex(where: { $0.id == id }) { return "S\(index + 1)" }
    if let index = questions.firstIndex(where: { $0.id == id }) { return "Q\(index + 1)" }
    return id.rawValue
  }

  /// Its own questions in pages: a question whose condition names a question of the page being
  /// filled starts the next page, so each page's questions follow from the answers before it (no
  /// script needed). A survey without conditions is one page.
  public var pages: [[SurveyQuestion]] {
    var pages: [[SurveyQuestion]] = []
    var current: [SurveyQuestion] = []
    for question in questions {
      let named = Set(question.condition?.rules.map(\.question) ?? [])
      if current.contains(where: { named.contains($0.id) }) {
        pages.append(current)
        current = []
      }
      current.append(question)
    }
    if !current.isEmpty || pages.isEmpty { pages.append(current) }
    return pages
  }

  /// What is wrong with its logic (conditions, cells), in question order; empty when it can be
  /// published.
  public func logicErrors() -> [LogicError] {
    var errors: [LogicError] = []
    var before: [QuestionID: SurveyQuestion] = [:]
    /// Questions that some answers show: a rule on one that never is cannot be met.
    var reachable: Set<QuestionID> = []
    for question in screening?.questions ?? [] where question.condition != nil { errors.append(.conditionOnScreening(question.id)) }
    for question in allQuestions {
      defer { before[question.id] = question }
      guard let condition = question.condition else {
        reachable.insert(question.id)
        continue
      }
      var possible: [Bool] = []
      var broken = false
      for rule in condition.rules {
        guard let named = before[rule.question] else {
          errors.append(.notEarlier(question.id, refersTo: rule.question))
          broken = true
          continue
        }
        switch named.satisfiability(of: rule) {
        case .unknownOption:
          errors.append(.unknownOption(question.id, refersTo: rule.question))
          broken = true
        case .untestable:
          errors.append(.untestable(question.id, refersTo: rule.question))
          broken = true
        case .possible:
          possible.append(reachable.contains(rule.question) && canReachOwnQuestions(rule))
        }
      }
      guard !broken else {
        reachable.insert(question.id)  // its own error says enough: none for the questions after
        continue
      }
      let met = switch condition.join {
      case .all: !condition.rules.isEmpty && possible.allSatisfy { $0 } && !Self.contradicts(condition.rules, in: before)
      case .any: possible.contains(true)
      }
      if met { reachable.insert(question.id) } else { errors.append(.unreachable(question.id)) }
    }
    if let cells {
      for case let .screening(id) in cells.dimensions {
        let question = screening?.questions.first { $0.id == id }
        guard case .singleChoice? = question?.kind else {
          errors.append(.cellQuestion(id))
          continue
        }
      }
    }
    return errors
  }

  /// Whether a rule can hold for someone who reaches the survey's own questions: on a screening
  /// single choice, only its qualifying options can (the others screened them out).
  private func canReachOwnQuestions(_ rule: DisplayCondition.Rule) -> Bool {
    guard let question = screening?.questions.first(where: { $0.id == rule.question }), case .singleChoice = question.kind,
      let qualifying = screening?.qualifying[rule.question]
    else { return true }
    return rule.choices?.contains(where: qualifying.contains) ?? true
  }

  /// Whether rules that must all hold ask one single-answer question (or grid row) for options
  /// that cannot both be its answer, or for numbers no one number is.
  private static func contradicts(_ rules: [DisplayCondition.Rule], in questions: [QuestionID: SurveyQuestion]) -> Bool {
    var allowed: [String: Set<ChoiceID>] = [:]
    var ranges: [QuestionID: ClosedRange<Int>] = [:]
    for rule in rules {
      switch questions[rule.question]?.kind {
      case .singleChoice?, .attentionCheck?, .grid?:
        let key = rule.question.rawValue + "/" + (rule.row ?? "")
        let choices = Set(rule.choices ?? [])
        let narrowed = allowed[key].map { $0.intersection(choices) } ?? choices
        if narrowed.isEmpty { return true }
        allowed[key] = narrowed
      case .number?, .rating?:
        let range = (rule.min ?? .min)...(rule.max ?? .max)
        guard let kept = ranges[rule.question] else {
          ranges[rule.question] = range
          continue
        }
        guard kept.overlaps(range) else { return true }
        ranges[rule.question] = Swift.max(kept.lowerBound, range.lowerBound)...Swift.min(kept.upperBound, range.upperBound)
      default:
        continue
      }
    }
    return false
  }

  /// The answers of a draft to the questions shown: each question in order is shown when its
  /// condition is met by the answers before it (the screening's `earlier` included); a question
  /// not shown takes no answer, whatever the form sent for it.
  static func validateShown(
    _ draft: AnswerDraft, against questions: [SurveyQuestion], earlier: [SurveyAnswer]
  ) -> Result<[SurveyAnswer], AnswerErrors> {
    var given = Dictionary(earlier.map { ($0.questionID, $0.value) }) { first, _ in first }
    var answers: [SurveyAnswer] = []
    var errors: [QuestionID: AnswerError] = [:]
    for question in questions where question.condition?.isMet(by: given) ?? true {
      switch question.answer(from: draft[question.id] ?? []) {
      case let .success(value?):
        answers.append(SurveyAnswer(questionID: question.id, value: value))
        given[question.id] = value
      case .success(nil): break
      case let .failure(error): errors[question.id] = error
      }
    }
    return errors.isEmpty ? .success(answers) : .failure(AnswerErrors(byQuestion: errors))
  }

  /// The questions of its own a respondent with these answers (the screening's included) was
  /// shown: a question not among them has no answer because it was not asked.
  public func shownQuestions(given answers: [SurveyAnswer]) -> Set<QuestionID> {
    let given = Dictionary(answers.map { ($0.questionID, $0.value) }) { first, _ in first }
    return Set(questions.filter { $0.condition?.isMet(by: given) ?? true }.map(\.id))
  }
}

extension SurveyQuestion {
  enum Satisfiability { case possible, unknownOption, untestable }

  /// Whether a rule on this question's answer can be met.
  func satisfiability(of rule: DisplayCondition.Rule) -> Satisfiability {
    func options(_ choices: [Choice]) -> Satisfiability {
      guard let wanted = rule.choices, !wanted.isEmpty, rule.min == nil, rule.max == nil else { return .untestable }
      return wanted.allSatisfy { id in choices.contains { $0.id == id } } ? .possible : .unknownOption
    }
    func range(_ low: Int, _ high: Int) -> Satisfiability {
      guard rule.choices == nil, rule.row == nil, rule.min != nil || rule.max != nil else { return .untestable }
      let (min, max) = (rule.min ?? .min, rule.max ?? .max)
      return min <= max && min <= high && max >= low ? .possible : .untestable
    }
    switch kind {
    case let .singleChoice(choices), let .multipleChoice(choices, _, _), let .attentionCheck(choices, _):
      return rule.row == nil ? options(choices) : .untestable
    case let .grid(rows, scale):
      guard let row = rule.row else { return .untestable }
      return rows.contains { $0.id == row } ? options(scale) : .unknownOption
    case let .number(min, max, _): return range(min, max)
    case .rating: return range(1, 5)
    case .freeText, .longText: return .untestable
    }
  }
}

/// The order one respondent was shown a survey in, where it shuffles (questions within each page,
/// options of the questions that shuffle them): the same on every reload, since it follows from
/// the respondent's pseudonym; kept in their response.
public struct ShownOrder: Codable, Equatable, Sendable {
  /// Its own questions as shown; `nil`: in the survey's order.
  public let questions: [QuestionID]?
  /// The options of each question that shuffles them, as shown.
  public let choices: [QuestionID: [ChoiceID]]

  public init(questions: [QuestionID]?, choices: [QuestionID: [ChoiceID]]) {
    self.questions = questions
    self.choices = choices
  }
}

extension Survey {
  /// Whether anything in it is shuffled (its questions, or a question's options).
  public var shuffles: Bool { shufflesQuestions || questions.contains(where: \.shufflesChoices) }

  /// Whether its pages are made for each respondent (the survey feature's `present`): a
  /// condition decides what a page shows, or something is shuffled. Otherwise its one page shows
  /// its questions as they are.
  public var pagesPerRespondent: Bool { shuffles || questions.contains { $0.condition != nil } }

  /// The order `respondent` sees it in; `nil` when nothing in it shuffles.
  public func order(for respondent: String) -> ShownOrder? {
    guard shuffles else { return nil }
    let shuffled = questions.filter { $0.shufflesChoices }
    var choices: [QuestionID: [ChoiceID]] = [:]
    for question in shuffled {
      var generator = SeededGenerator(respondent, id.rawValue, question.id.rawValue)
      let options = question.choices
      let (last, rest) = (options.filter { SurveyQuestion.staysLast($0.label) }, options.filter { !SurveyQuestion.staysLast($0.label) })
      choices[question.id] = (generator.shuffle(rest) + last).map(\.id)
    }
    var order: [QuestionID]?
    if shufflesQuestions {
      var generator = SeededGenerator(respondent, id.rawValue)
      order = pages.flatMap { generator.shuffle($0) }.map(\.id)
    }
    return ShownOrder(questions: order, choices: choices)
  }
}

extension SurveyQuestion {
  /// Its options (of a choice question, an attention check, or a grid's scale).
  public var choices: [Choice] {
    switch kind {
    case let .singleChoice(choices), let .multipleChoice(choices, _, _), let .attentionCheck(choices, _), let .grid(_, choices): choices
    case .freeText, .longText, .rating, .number: []
    }
  }

  /// Whether an option keeps its place at the end when the others are shuffled: 「その他」 and
  /// 「あてはまるものはない」 (and their kin) read as answers of last resort.
  public static func staysLast(_ label: String) -> Bool {
    label.hasPrefix("その他") || ["あてはまるものはない", "あてはまるものはひとつもない", "特にない", "わからない", "該当なし"].contains { label.hasPrefix($0) }
  }
}

/// SplitMix64 seeded by an FNV-1a digest of its parts: the same parts give the same sequence in
/// every process (Swift's own hashing is seeded anew in each).
struct SeededGenerator {
  private var state: UInt64

  init(_ parts: String...) {
    var digest: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in parts.joined(separator: "\u{1F}").utf8 {
      digest ^= UInt64(byte)
      digest &*= 0x0000_0100_0000_01b3
    }
    state = digest
  }

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// `items` in an order drawn from the sequence (Fisher–Yates, ours: the standard library's
  /// shuffle may draw differently in another release, and an order must stay a respondent's).
  mutating func shuffle<T>(_ items: [T]) -> [T] {
    var items = items
    for index in items.indices.reversed() where index > 0 {
      items.swapAt(index, Int(next() % UInt64(index + 1)))
    }
    return items
  }
}

extension Survey {
  /// The answers a draft gives to the questions of pages before `page` that were shown (the
  /// screening's `screening` first): what conditions on later pages are decided by. A question
  /// whose input does not make an answer counts as unanswered.
  func given(_ draft: AnswerDraft, before page: Int, screening: [SurveyAnswer]) -> [QuestionID: SurveyAnswer.Value] {
    var given = Dictionary(screening.map { ($0.questionID, $0.value) }) { first, _ in first }
    for question in pages.prefix(page).joined() where question.condition?.isMet(by: given) ?? true {
      if case let .success(value?) = question.answer(from: draft[question.id] ?? []) { given[question.id] = value }
    }
    return given
  }

  /// The first page from `page` on (the last, if none) that shows a question to a respondent with
  /// these answers, and the questions it shows, in the respondent's order with their options as
  /// shown to them.
  public func page(
    from page: Int, draft: AnswerDraft, screening: [SurveyAnswer], order: ShownOrder?
  ) -> (index: Int, questions: [SurveyQuestion]) {
    let pages = pages
    var index = Swift.max(0, Swift.min(page, pages.count - 1))
    var shown: [SurveyQuestion] = []
    while true {
      let given = given(draft, before: index, screening: screening)
      shown = pages[index].filter { $0.condition?.isMet(by: given) ?? true }
      if !shown.isEmpty || index == pages.count - 1 { break }
      index += 1
    }
    if let questions = order?.questions {
      let place = Dictionary(questions.enumerated().map { ($1, $0) }) { first, _ in first }
      shown.sort { (place[$0.id] ?? .max) < (place[$1.id] ?? .max) }
    }
    return (index, shown.map { question in order?.choices[question.id].map { question.reordered($0) } ?? question })
  }

  /// The next page after `page` that shows a question to a respondent with these answers; `nil`
  /// when `page` is the last that does.
  public func page(after page: Int, draft: AnswerDraft, screening: [SurveyAnswer]) -> Int? {
    let pages = pages
    var index = page + 1
    while index < pages.count {
      let given = given(draft, before: index, screening: screening)
      if pages[index].contains(where: { $0.condition?.isMet(by: given) ?? true }) { return index }
      index += 1
    }
    return nil
  }

  /// The page before `page` that shows a question to a respondent with these answers (the first,
  /// if none does).
  public func page(before page: Int, draft: AnswerDraft, screening: [SurveyAnswer]) -> Int {
    var index = page - 1
    while index > 0 {
      let given = given(draft, before: index, screening: screening)
      if pages[index].contains(where: { $0.condition?.isMet(by: given) ?? true }) { return index }
      index -= 1
    }
    return 0
  }
}

extension SurveyQuestion {
  /// The question with its options in `order` (options it lacks dropped, those not named kept
  /// after).
  func reordered(_ order: [ChoiceID]) -> SurveyQuestion {
    let place = Dictionary(order.enumerated().map { ($1, $0) }) { first, _ in first }
    func sorted(_ choices: [Choice]) -> [Choice] { choices.sorted { (place[$0.id] ?? .max) < (place[$1.id] ?? .max) } }
    let kind: Kind = switch kind {
    case let .singleChoice(choices): .singleChoice(choices: sorted(choices))
    case let .multipleChoice(choices, min, max): .multipleChoice(choices: sorted(choices), minPicks: min, maxPicks: max)
    case .attentionCheck, .grid, .freeText, .longText, .rating, .number: kind
    }
    return SurveyQuestion(id: id, text: text, kind: kind, condition: condition, shufflesChoices: shufflesChoices)
  }
}
