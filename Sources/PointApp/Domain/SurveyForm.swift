import Foundation

/// A survey as the editor's form holds it: every field as the operator typed it, so that a form
/// with mistakes is kept (a draft) and shown again with each mistake at its field. `survey(…)`
/// turns it into a survey when every field is right.
///
/// Choices, grid rows and grid scales are typed one per line. A line starting with `*` marks a
/// screening question's qualifying answer, or an attention check's expected one; a grid row
/// ending in `（任意）` may be left unanswered.
public struct SurveyForm: Codable, Equatable, Sendable {
  public var title = ""
  public var description = ""
  public var category = SurveyCategory.lifestyle.rawValue
  public var reward = ""
  public var minutes = ""
  /// `yyyy-MM-ddTHH:mm` in Tokyo, as `<input type="datetime-local">` sends it.
  public var publishAt = ""
  /// As `publishAt`; empty: no deadline.
  public var deadline = ""
  /// Empty: no limit on completes.
  public var quota = ""
  public var minAge = ""
  public var maxAge = ""
  /// `Gender` raw values; none: every gender.
  public var genders: [String] = []
  /// `Prefecture` raw values; none: every prefecture.
  public var prefectures: [String] = []
  /// Empty: no minimum time.
  public var minSecondsPerQuestion = ""
  /// What a person screened out is paid (with screening questions only).
  public var consolation = ""
  public var questions: [Question] = []
  // Absent in drafts saved before the survey logic: `nil` reads as empty.
  /// Each respondent gets the questions in an order of their own (within each page).
  public var shuffleQuestions: Bool?
  /// What quota cells are made of: `gender`, `ageBand`, `s:<screening question id>`.
  public var cellDimensions: [String]?
  /// The cells, one per line: the dimensions' values joined by `×`, then `= <limit>`
  /// (`女性 × 20代 = 50`).
  public var cells: String?

  public init() {}

  public struct Question: Codable, Equatable, Sendable {
    /// Kept across edits; a new question gets the first `q<n>` not taken.
    public var id: String
    /// Asked first, as the survey's screening.
    public var isScreening = false
    public var kind: Kind
    public var text = ""
    /// One per line; `*` first marks a qualifying (screening) or expected (attention check) one.
    public var choices = ""
    /// A grid's rows, one per line; `（任意）` last: may be left unanswered.
    public var rows = ""
    public var minPicks = ""
    public var maxPicks = ""
    public var isRequired = true
    public var minLength = ""
    public var maxLength = ""
    public var min = ""
    public var max = ""
    public var unit = ""
    // Absent in drafts saved before the survey logic: `nil` reads as empty.
    /// Its options in an order of each respondent's own.
    public var shuffle: Bool?
    /// `all` (AND) or `any` (OR) of its condition's rules.
    public var join: String?
    /// Its display condition, a rule per line: `<question id>[ <grid row>]: <answers>`, the answers
    /// options' labels joined by `、` or a range `3〜5` (either end open); empty: always shown.
    public var conditions: String?

    public init(id: String, kind: Kind) {
      self.id = id
      self.kind = kind
      switch kind {
      case .multiple: (minPicks, maxPicks) = ("1", "3")
      case .text: maxLength = "200"
      case .longText: (minLength, maxLength) = ("10", "400")
      case .number: (min, max) = ("0", "100")
      case .single, .rating, .grid, .attention: break
      }
    }
  }

  public enum Kind: String, Codable, CaseIterable, Sendable {
    case single, multiple, text, longText, rating, number, grid, attention

    public var title: String {
      switch self {
      case .single: "単一選択"
      case .multiple: "複数選択"
      case .text: "自由記述（短文）"
      case .longText: "自由記述（長文）"
      case .rating: "5段階評価"
      case .number: "数値"
      case .grid: "マトリクス"
      case .attention: "注意確認"
      }
    }

    var isChoice: Bool { self == .single || self == .multiple }
  }

  /// What is wrong with a form: a Japanese message per field, by the field's form name (`title`,
  /// `q.2.choices`).
  public struct Errors: Error, Equatable, Sendable, ExpressibleByDictionaryLiteral {
    public var byField: [String: String]

    public init(dictionaryLiteral elements: (String, String)...) {
      byField = Dictionary(elements) { _, last in last }
    }

    public subscript(field: String) -> String? {
      get { byField[field] }
      set { byField[field] = newValue }
    }

    public var isEmpty: Bool { byField.isEmpty }
    public var count: Int { byField.count }
  }

  public static let optionalMark = "（任意）"

  // MARK: - Editing

  /// Adds a question of `kind` at the end.
  public mutating func addQuestion(_ kind: Kind) {
    let taken = Set(questions.map(\.id))
    let id = (1...).lazy.map { "q\($0)" }.first { !taken.contains($0) }!
    questions.append(Question(id: id, kind: kind))
  }

  /// Removes the question at `index` (nothing if there is none).
  public mutating func removeQuestion(at index: Int) {
    guard questions.indices.contains(index) else { return }
    questions.remove(at: index)
  }

  /// Moves the question at `index` one place up (`offset` -1) or down (+1), if it can.
  public mutating func moveQuestion(at index: Int, by offset: Int) {
    let target = index + offset
    guard questions.indices.contains(index), questions.indices.contains(target) else { return }
    questions.swapAt(index, target)
  }

  // MARK: - From a survey

  /// The form of `survey`, to edit or duplicate it.
  public init(_ survey: Survey) {
    title = survey.title
    description = survey.description
    category = survey.category.rawValue
    reward = "\(survey.reward.value)"
    minutes = "\(survey.estimatedMinutes)"
    publishAt = Self.format(survey.publishedAt)
    deadline = survey.expiresAt.map(Self.format) ?? ""
    quota = survey.quota.map { "\($0.target)" } ?? ""
    minAge = survey.targeting?.minAge.map(String.init) ?? ""
    maxAge = survey.targeting?.maxAge.map(String.init) ?? ""
    genders = survey.targeting?.genders?.map(\.rawValue) ?? []
    prefectures = survey.targeting?.prefectures?.map(\.rawValue) ?? []
    minSecondsPerQuestion = survey.quality.map { "\($0.minSecondsPerQuestion)" } ?? ""
    if let screening = survey.screening {
      consolation = "\(screening.consolation.value)"
      questions = screening.questions.map { Question($0, marked: screening.qualifying[$0.id] ?? [], isScreening: true) }
    }
    questions += survey.questions.map { Question($0, marked: [], isScreening: false) }
    let all = Dictionary(survey.allQuestions.map { ($0.id, $0) }) { first, _ in first }
    for (index, question) in questions.enumerated() where !question.isScreening {
      guard let built = all[QuestionID(question.id)] else { continue }
      questions[index].shuffle = built.shuffle
      if let condition = built.condition {
        questions[index].join = condition.join.rawValue
        questions[index].conditions = condition.rules.map { Self.line(of: $0, in: all) }.joined(separator: "\n")
      }
    }
    shuffleQuestions = survey.shufflesQuestions ? true : nil
    if let cells = survey.cells {
      cellDimensions = cells.dimensions.map(\.rawValue)
      self.cells = cells.cells.map { cells.label(of: $0, in: survey) + " = \($0.limit)" }.joined(separator: "\n")
    }
  }

  /// A rule as the form writes it: `q1: ほとんど食べない、たまに`, `q4 味: 満足`, `q5: 3〜5`.
  static func line(of rule: DisplayCondition.Rule, in questions: [QuestionID: SurveyQuestion]) -> String {
    let question = questions[rule.question]
    var head = rule.question.rawValue
    if let row = rule.row {
      let label: String? = if case let .grid(rows, _)? = question?.kind { rows.first { $0.id == row }?.label } else { nil }
      head += " " + (label ?? row)
    }
    if let choices = rule.choices {
      let labels = choices.map { id in question?.choices.first { $0.id == id }?.label ?? id.rawValue }
      return head + ": " + labels.joined(separator: "、")
    }
    return head + ": " + (rule.min.map(String.init) ?? "") + "〜" + (rule.max.map(String.init) ?? "")
  }



  // MARK: - To a survey

  /// The survey this form describes, as `id` at `version`, or what is wrong with it. `base` is the
  /// published survey it edits, if any: its choices keep their ids when their labels stay, and
  /// its quota's count from other channels stays.
  public func survey(id: SurveyID, version: Int, base: Survey?) -> Result<Survey, Errors> {
    var errors: Errors = [:]
    func text(_ field: String, _ value: String, name: String, max: Int) -> String {
      let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
      if value.isEmpty { errors[field] = "\(name)を入力してください" }
      else if value.count > max { errors[field] = "\(name)は\(max)文字以内で入力してください" }
      return value
    }
    func number(_ field: String, _ value: String, name: String, in range: ClosedRange<Int>, optional: Bool = false) -> Int? {
      let value = Profile.halfWidthDigits(value).trimmingCharacters(in: .whitespaces)
      if value.isEmpty {
        if !optional { errors[field] = "\(name)を入力してください" }
        return nil
      }
      guard let number = Int(value), range.contains(number) else {
        errors[field] = "\(name)は\(range.lowerBound)〜\(range.upperBound)の整数で入力してください"
        return nil
      }
      return number
    }
    func moment(_ field: String, _ value: String, name: String, optional: Bool = false) -> Date? {
      if value.isEmpty {
        if !optional { errors[field] = "\(name)を入力してください" }
        return nil
      }
      guard let date = Self.parse(value) else {
        errors[field] = "\(name)は「2026-12-01T10:00」の形で入力してください"
        return nil
      }
      return date
    }

    let title = text("title", title, name: "タイトル", max: 80)
    let description = text("description", description, name: "説明", max: 400)
    let category = SurveyCategory(rawValue: category)
    if category == nil { errors["category"] = "カテゴリを選んでください" }
    let reward = number("reward", reward, name: "報酬", in: 1...10_000)
    let minutes = number("minutes", minutes, name: "所要時間", in: 1...120)
    let publishedAt = moment("publishAt", publishAt, name: "公開日時")
    let expiresAt = moment("deadline", deadline, name: "締切日時", optional: true)
    if let publishedAt, let expiresAt, expiresAt <= publishedAt { errors["deadline"] = "締切日時は公開日時より後にしてください" }
    let target = number("quota", quota, name: "回収目標", in: 1...1_000_000, optional: true)
    let minAge = number("minAge", minAge, name: "年齢の下限", in: 0...120, optional: true)
    let maxAge = number("maxAge", maxAge, name: "年齢の上限", in: 0...120, optional: true)
    if let minAge, let maxAge, minAge > maxAge { errors["maxAge"] = "年齢の上限は下限以上にしてください" }
    let genders = self.genders.compactMap(Gender.init(rawValue:))
    if genders.count != self.genders.count { errors["genders"] = "性別を選び直してください" }
    let prefectures = self.prefectures.compactMap(Prefecture.init(rawValue:))
    if prefectures.count != self.prefectures.count { errors["prefectures"] = "都道府県を選び直してください" }
    let minSeconds = number("minSecondsPerQuestion", minSecondsPerQuestion, name: "1問あたりの最短時間", in: 1...60, optional: true)

    var main: [SurveyQuestion] = []
    var screening: [SurveyQuestion] = []
    var qualifying: [QuestionID: [ChoiceID]] = [:]
    let baseQuestions = Dictionary(
      ((base?.questions ?? []) + (base?.screening?.questions ?? [])).map { ($0.id.rawValue, $0) }
    ) { first, _ in first }
    for (index, form) in questions.enumerated() {
      let field = "q.\(index)"
      let built = form.question(field: field, base: baseQuestions[form.id], errors: &errors)
      guard let (question, marked) = built else { continue }
      if form.isScreening {
        screening.append(question)
        if !marked.isEmpty { qualifying[question.id] = marked }
      } else {
        main.append(question)
      }
    }
    if Set(questions.map(\.id)).count != questions.count { errors["questions"] = "設問のIDが重複しています" }
    if !questions.contains(where: { !$0.isScreening }) { errors["questions"] = "本調査の設問を1つ以上追加してください" }
    var consolation: Int?
    if questions.contains(where: \.isScreening) {
      consolation = number("consolation", self.consolation, name: "対象外のお礼", in: 0...10_000)
      if let consolation, let reward, consolation > reward { errors["consolation"] = "対象外のお礼は報酬以下にしてください" }
    }

    // The logic: each question's condition and shuffle (by the questions as built), the cells.
    let built = Dictionary((screening + main).map { ($0.id, $0) }) { first, _ in first }
    main = main.map { question in
      guard let index = questions.firstIndex(where: { $0.id == question.id.rawValue }) else { return question }
      let form = questions[index]
      let condition = form.condition(field: "q.\(index).conditions", in: built, errors: &errors)
      return SurveyQuestion(id: question.id, text: question.text, kind: question.kind, condition: condition, shufflesChoices: form.shuffle == true)
    }
    for (index, form) in questions.enumerated() where form.isScreening && !(form.conditions ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
      errors["q.\(index).conditions"] = "事前調査の設問には表示条件を付けられません"
    }
    let cells = quotaCells(screening: screening, errors: &errors)

    guard errors.isEmpty, let category, let reward, let minutes, let publishedAt else { return .failure(errors) }
    let targeting = minAge == nil && maxAge == nil && genders.isEmpty && prefectures.isEmpty
      ? nil
      : Targeting(minAge: minAge, maxAge: maxAge, genders: genders.isEmpty ? nil : genders, prefectures: prefectures.isEmpty ? nil : prefectures)
    return .success(Survey(
      id: id, title: title, description: description, category: category, questions: main,
      reward: PointAmount(reward)!, estimatedMinutes: minutes, publishedAt: publishedAt, expiresAt: expiresAt,
      targeting: targeting,
      screening: screening.isEmpty ? nil : Screening(questions: screening, qualifying: qualifying, consolation: PointAmount(consolation ?? 0)!),
      quality: minSeconds.map(QualitySettings.init(minSecondsPerQuestion:)),
      quota: target.map { Quota(target: $0, collected: base?.quota?.collected ?? 0) },
      version: version, shufflesQuestions: shuffleQuestions == true, cells: cells
    )).flatMap { survey in
      // Conditions on later questions, gone options, the unreachable: at the question they are about.
      let problems = survey.logicErrors()
      guard !problems.isEmpty else { return .success(survey) }
      var errors: Errors = [:]
      for problem in problems {
        let index = questions.firstIndex { $0.id == problem.question.rawValue }
        let field = if case .cellQuestion = problem { "cells" } else { index.map { "q.\($0).conditions" } ?? "questions" }
        errors[field] = problem.message { id in questions.firstIndex { $0.id == id.rawValue }.map { "設問\($0 + 1)" } ?? id.rawValue }
      }
      return .failure(errors)
    }
  }

  /// The quota cells the form describes, with their mistakes under `cells`; `nil`: none.
  func quotaCells(screening: [SurveyQuestion], errors: inout Errors) -> QuotaCells? {
    let lines = (cells ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    let dimensions = (cellDimensions ?? []).compactMap(QuotaCells.Dimension.init(rawValue:))
    if dimensions.count != (cellDimensions ?? []).count { errors["cellDimensions"] = "割付の軸を選び直してください" }
    guard !lines.isEmpty || !dimensions.isEmpty else { return nil }
    guard !dimensions.isEmpty else {
      errors["cellDimensions"] = "割付の軸（性別・年代・事前調査の設問）を選んでください"
      return nil
    }
    for case let .screening(id) in dimensions {
      guard case .singleChoice? = screening.first(where: { $0.id == id })?.kind else {
        errors["cells"] = LogicError.cellQuestion(id).message { id in questions.firstIndex { $0.id == id.rawValue }.map { "設問\($0 + 1)" } ?? id.rawValue }
        return nil
      }
    }
    var cells: [QuotaCells.Cell] = []
    for line in lines {
      // The limit after the last `=`; the values before it, joined by `×` (a label may hold an `x`).
      let equals = line.lastIndex { $0 == "=" || $0 == "＝" }
      let head = equals.map { String(line[..<$0]) } ?? line
      let tail = equals.map { String(line[line.index(after: $0)...]).trimmingCharacters(in: .whitespaces) } ?? ""
      let values = head.split(whereSeparator: { "×✕".contains($0) }).map { $0.trimmingCharacters(in: .whitespaces) }
      guard equals != nil, let limit = Int(Profile.halfWidthDigits(tail)), (1...1_000_000).contains(limit) else {
        errors["cells"] = "「\(line)」：各行を「女性 × 20代 = 50」の形（末尾に = 上限件数）で入力してください"
        continue
      }
      guard values.count == dimensions.count else {
        errors["cells"] = "「\(line)」：軸の数（\(dimensions.count)つ）だけ値を「×」でつないでください"
        continue
      }
      var ids: [String] = []
      for (dimension, value) in zip(dimensions, values) {
        let id: String? = switch dimension {
        case .gender: Gender.allCases.first { $0.title == value }?.rawValue
        case .ageBand: value.hasSuffix("代") ? Int(Profile.halfWidthDigits(String(value.dropLast()))).flatMap { $0 % 10 == 0 && (0...120).contains($0) ? String($0) : nil } : nil
        case let .screening(question): screening.first { $0.id == question }?.choices.first { $0.label == value }?.id.rawValue
        }
        guard let id else {
          errors["cells"] = "「\(line)」：「\(value)」は\(dimension.title)の値にありません"
          break
        }
        ids.append(id)
      }
      guard ids.count == dimensions.count else { continue }
      if cells.contains(where: { $0.values == ids }) { errors["cells"] = "「\(line)」：同じセルが2回あります" }
      cells.append(QuotaCells.Cell(values: ids, limit: limit))
    }
    if cells.isEmpty, errors["cells"] == nil { errors["cells"] = "セルを1行に1つ、「女性 × 20代 = 50」の形で入力してください" }
    return QuotaCells(dimensions: dimensions, cells: cells)
  }

  // MARK: - Dates

  /// Tokyo's wall clock, as the form shows and sends it.
  static func format(_ date: Date) -> String {
    let parts = Calendar.tokyo.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    return String(format: "%04d-%02d-%02dT%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
  }

  static func parse(_ text: String) -> Date? {
    let parts = text.split(whereSeparator: { "-T:".contains($0) }).map { Int($0) }
    guard parts.count == 5 || parts.count == 6, parts.allSatisfy({ $0 != nil }), text.count <= 19 else { return nil }
    let numbers = parts.map { $0! }
    let components = DateComponents(year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4])
    guard components.isValidDate(in: Calendar.tokyo), (2000...2999).contains(numbers[0]) else { return nil }
    return Calendar.tokyo.date(from: components)
  }

  /// The form's value for `date`.
  public static func formatted(_ date: Date) -> String { format(date) }
}

extension SurveyForm.Question {
  /// The display condition its lines describe, over the questions `built` (by id), with its
  /// mistakes under `field`; `nil` when it has none.
  func condition(field: String, in built: [QuestionID: SurveyQuestion], errors: inout SurveyForm.Errors) -> DisplayCondition? {
    let lines = (conditions ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard !lines.isEmpty else { return nil }
    guard let join = DisplayCondition.Join(rawValue: join ?? "all") else {
      errors[field] = "条件のつなぎ方を選び直してください"
      return nil
    }
    var rules: [DisplayCondition.Rule] = []
    for line in lines {
      guard let colon = line.firstIndex(where: { $0 == ":" || $0 == "：" }) else {
        errors[field] = "「\(line)」：「q1: 選択肢」の形（設問ID、コロン、回答）で入力してください"
        continue
      }
      let head = line[..<colon].split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      let answer = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      guard let id = head.first, let question = built[QuestionID(id)] else {
        errors[field] = "「\(line)」：設問ID「\(head.first ?? "")」の設問がありません"
        continue
      }
      var row: String?
      if head.count == 2 {
        guard case let .grid(rows, _) = question.kind, let found = rows.first(where: { $0.label == head[1] }) else {
          errors[field] = "「\(line)」：「\(head[1])」は\(id)の行にありません"
          continue
        }
        row = found.id
      }
      switch question.kind {
      case .number, .rating:
        let bounds = answer.split(omittingEmptySubsequences: false, whereSeparator: { "〜~～".contains($0) })
          .map { Profile.halfWidthDigits(String($0)).trimmingCharacters(in: .whitespaces) }
        guard bounds.count == 2, bounds.allSatisfy({ $0.isEmpty || Int($0) != nil }), bounds.contains(where: { !$0.isEmpty }) else {
          errors[field] = "「\(line)」：数値の範囲は「3〜5」「3〜」「〜5」の形で入力してください"
          continue
        }
        rules.append(DisplayCondition.Rule(question: question.id, min: Int(bounds[0]), max: Int(bounds[1])))
      default:
        let options = question.choices
        // One label as typed (it may hold a 、), or several joined by 、 or a comma.
        let labels = options.contains(where: { $0.label == answer }) ? [answer]
          : answer.split(whereSeparator: { "、,，".contains($0) }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let ids = labels.compactMap { label in options.first { $0.label == label }?.id }
        guard !labels.isEmpty, ids.count == labels.count else {
          let unknown = labels.first { label in !options.contains { $0.label == label } } ?? ""
          errors[field] = labels.isEmpty ? "「\(line)」：回答の選択肢を入力してください" : "「\(line)」：「\(unknown)」は\(id)の選択肢にありません"
          continue
        }
        rules.append(DisplayCondition.Rule(question: question.id, row: row, choices: ids))
      }
    }
    return DisplayCondition(join, rules)
  }

  /// The form of a question of a survey; `marked` are the choices its `*` marks.
  init(_ question: SurveyQuestion, marked: [ChoiceID], isScreening: Bool) {
    func lines(_ choices: [SurveyQuestion.Choice], marked: [ChoiceID]) -> String {
      choices.map { (marked.contains($0.id) ? "*" : "") + $0.label }.joined(separator: "\n")
    }
    switch question.kind {
    case let .singleChoice(choices):
      self.init(id: question.id.rawValue, kind: .single)
      self.choices = lines(choices, marked: marked)
    case let .multipleChoice(choices, minPicks, maxPicks):
      self.init(id: question.id.rawValue, kind: .multiple)
      self.choices = lines(choices, marked: marked)
      (self.minPicks, self.maxPicks) = ("\(minPicks)", "\(maxPicks)")
    case let .freeText(required, maxLength):
      self.init(id: question.id.rawValue, kind: .text)
      isRequired = required
      self.maxLength = "\(maxLength)"
    case let .longText(minLength, maxLength):
      self.init(id: question.id.rawValue, kind: .longText)
      (self.minLength, self.maxLength) = ("\(minLength)", "\(maxLength)")
    case .rating:
      self.init(id: question.id.rawValue, kind: .rating)
    case let .number(min, max, unit):
      self.init(id: question.id.rawValue, kind: .number)
      (self.min, self.max, self.unit) = ("\(min)", "\(max)", unit ?? "")
    case let .grid(rows, scale):
      self.init(id: question.id.rawValue, kind: .grid)
      self.rows = rows.map { $0.label + ($0.isOptional == true ? SurveyForm.optionalMark : "") }.joined(separator: "\n")
      choices = lines(scale, marked: [])
    case let .attentionCheck(choices, expected):
      self.init(id: question.id.rawValue, kind: .attention)
      self.choices = lines(choices, marked: [expected])
    }
    self.text = question.text
    self.isScreening = isScreening
  }

  /// The question this form describes and the choices its `*` marks, or `nil` with its errors
  /// added under `field`.
  func question(field: String, base: SurveyQuestion?, errors: inout SurveyForm.Errors) -> (SurveyQuestion, [ChoiceID])? {
    let before = errors.count
    let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.isEmpty { errors["\(field).text"] = "設問文を入力してください" }
    else if text.count > 200 { errors["\(field).text"] = "設問文は200文字以内で入力してください" }
    if !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) || id.isEmpty || id.count > 40 {
      errors["\(field).text"] = "設問のIDが正しくありません。設問を追加し直してください"
    }
    if isScreening, !kind.isChoice { errors["\(field).kind"] = "事前調査にできるのは単一選択・複数選択の設問です" }

    func int(_ name: String, _ value: String, label: String, in range: ClosedRange<Int>) -> Int? {
      guard let number = Int(Profile.halfWidthDigits(value).trimmingCharacters(in: .whitespaces)), range.contains(number) else {
        errors["\(field).\(name)"] = "\(label)は\(range.lowerBound)〜\(range.upperBound)の整数で入力してください"
        return nil
      }
      return number
    }
    /// The lines of `value`, trimmed, without empty ones.
    func lines(_ value: String) -> [String] {
      value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    /// Choices from lines: the ids of `previous` kept for the labels it had, new ones `c<n>`.
    func choices(_ name: String, minimum: Int, previous: [SurveyQuestion.Choice], label: String) -> (choices: [SurveyQuestion.Choice], marked: [ChoiceID]) {
      let entries: [(label: String, marked: Bool)] = lines(self.choices).map { line in
        line.hasPrefix("*") || line.hasPrefix("＊")
          ? (label: String(line.dropFirst()).trimmingCharacters(in: .whitespaces), marked: true) : (label: line, marked: false)
      }.filter { !$0.label.isEmpty }
      if entries.count < minimum { errors["\(field).\(name)"] = "\(label)を\(minimum)つ以上、1行に1つずつ入力してください" }
      if Set(entries.map { $0.label }).count != entries.count { errors["\(field).\(name)"] = "\(label)に同じものがあります" }
      if entries.contains(where: { $0.label.count > 100 }) { errors["\(field).\(name)"] = "\(label)は1つ100文字以内にしてください" }
      if entries.count > 50 { errors["\(field).\(name)"] = "\(label)は50個までです" }
      var taken = Set(previous.map(\.id.rawValue))
      var next = 1
      let built = entries.map { entry -> SurveyQuestion.Choice in
        if let kept = previous.first(where: { $0.label == entry.label }) { return kept }
        while taken.contains("c\(next)") { next += 1 }
        taken.insert("c\(next)")
        return SurveyQuestion.Choice(id: ChoiceID("c\(next)"), label: entry.label)
      }
      return (built, zip(built, entries).filter(\.1.marked).map(\.0.id))
    }
    func previousChoices() -> [SurveyQuestion.Choice] { base?.choices ?? [] }

    let kind: SurveyQuestion.Kind?
    var marked: [ChoiceID] = []
    switch self.kind {
    case .single:
      let built = choices("choices", minimum: 2, previous: previousChoices(), label: "選択肢")
      kind = .singleChoice(choices: built.choices)
      marked = built.marked
    case .multiple:
      let built = choices("choices", minimum: 2, previous: previousChoices(), label: "選択肢")
      marked = built.marked
      let minPicks = int("minPicks", minPicks, label: "選べる数の下限", in: 0...50)
      let maxPicks = int("maxPicks", maxPicks, label: "選べる数の上限", in: 1...50)
      if let minPicks, let maxPicks {
        if minPicks > maxPicks { errors["\(field).maxPicks"] = "選べる数の上限は下限以上にしてください" }
        else if maxPicks > built.choices.count, built.choices.count >= 2 { errors["\(field).maxPicks"] = "選べる数の上限は選択肢の数以下にしてください" }
      }
      kind = .multipleChoice(choices: built.choices, minPicks: minPicks ?? 0, maxPicks: maxPicks ?? 1)
    case .text:
      let maxLength = int("maxLength", maxLength, label: "最大文字数", in: 1...2000)
      kind = .freeText(required: isRequired, maxLength: maxLength ?? 1)
    case .longText:
      let minLength = int("minLength", minLength, label: "最小文字数", in: 1...2000)
      let maxLength = int("maxLength", maxLength, label: "最大文字数", in: 1...2000)
      if let minLength, let maxLength, minLength > maxLength { errors["\(field).maxLength"] = "最大文字数は最小文字数以上にしてください" }
      kind = .longText(minLength: minLength ?? 1, maxLength: maxLength ?? 1)
    case .rating:
      kind = .rating
    case .number:
      let min = int("min", min, label: "最小値", in: -1_000_000_000...1_000_000_000)
      let max = int("max", max, label: "最大値", in: -1_000_000_000...1_000_000_000)
      if let min, let max, min >= max { errors["\(field).max"] = "最大値は最小値より大きくしてください" }
      let unit = unit.trimmingCharacters(in: .whitespaces)
      if unit.count > 10 { errors["\(field).unit"] = "単位は10文字以内で入力してください" }
      kind = .number(min: min ?? 0, max: max ?? 0, unit: unit.isEmpty ? nil : unit)
    case .grid:
      let rowLines = lines(rows)
      if rowLines.isEmpty { errors["\(field).rows"] = "行を1つ以上、1行に1つずつ入力してください" }
      if Set(rowLines).count != rowLines.count { errors["\(field).rows"] = "行に同じものがあります" }
      if rowLines.count > 30 { errors["\(field).rows"] = "行は30個までです" }
      let previousRows: [SurveyQuestion.GridRow] = if case let .grid(rows, _)? = base?.kind { rows } else { [] }
      var taken = Set(previousRows.map(\.id))
      var next = 1
      let rows = rowLines.map { line -> SurveyQuestion.GridRow in
        let isOptional = line.hasSuffix(SurveyForm.optionalMark)
        let label = isOptional ? String(line.dropLast(SurveyForm.optionalMark.count)).trimmingCharacters(in: .whitespaces) : line
        if let kept = previousRows.first(where: { $0.label == label }) {
          return SurveyQuestion.GridRow(id: kept.id, label: label, isOptional: isOptional ? true : nil)
        }
        while taken.contains("r\(next)") { next += 1 }
        taken.insert("r\(next)")
        return SurveyQuestion.GridRow(id: "r\(next)", label: label, isOptional: isOptional ? true : nil)
      }
      let scale = choices("choices", minimum: 2, previous: previousChoices(), label: "評価の段階")
      kind = .grid(rows: rows, scale: scale.choices)
    case .attention:
      let built = choices("choices", minimum: 2, previous: previousChoices(), label: "選択肢")
      if built.marked.count != 1, errors["\(field).choices"] == nil {
        errors["\(field).choices"] = "正解の選択肢を1つだけ、行頭に「*」を付けて示してください"
      }
      kind = .attentionCheck(choices: built.choices, expected: built.marked.first ?? ChoiceID(""))
    }
    if isScreening, self.kind.isChoice, marked.isEmpty, errors["\(field).choices"] == nil {
      errors["\(field).choices"] = "対象となる選択肢の行頭に「*」を付けてください"
    }
    guard errors.count == before, let kind else { return nil }
    return (SurveyQuestion(id: QuestionID(id), text: text, kind: kind), marked)
  }
}
