import Foundation

/// The responses of a survey as a table, the layout of the export: one column per question, one
/// per grid row, one 0/1 column per option of a multiple-choice question; each column has a code
/// (`S1` for screening questions, `Q1`, `Q2_3` for the third option or row of `Q2`) and a Japanese
/// heading. Every version answered has its columns: those of the version now, in its order, then
/// the questions, options and rows only earlier versions had (headed with the versions that asked
/// them), so no answer is left out. An option column reads 1 when picked, 0 when shown and not
/// picked, and is blank when the respondent was not shown it (a condition skipped its question,
/// their version did not have it, they were screened out). Where a survey shuffles, a column gives
/// the order each respondent saw; where it has quota cells, their cell.
public struct ResponseTable: Sendable {
  public enum Cell: Equatable, Sendable {
    case text(String)
    case number(Int)
    case empty
  }

  public struct Column: Equatable, Sendable {
    public let code: String
    public let heading: String
    fileprivate let value: Value

    fileprivate enum Value: Equatable, Sendable {
      case respondent, outcome, version, shownAt, sentAt, seconds, flags, paid, ageBand, gender, prefecture, cell, questionOrder
      /// A single choice, an attention check, a rating, a number or a text: the answer.
      case answer(QuestionID, screening: Bool)
      /// An option of a multiple-choice question: 1 when picked, 0 when shown and not, blank when
      /// not shown.
      case option(QuestionID, ChoiceID, screening: Bool)
      /// A row of a grid: the scale's label picked.
      case row(QuestionID, String, screening: Bool)
      /// The options of a question as the respondent saw them, by their column numbers.
      case choiceOrder(QuestionID)
    }
  }

  public let columns: [Column]
  /// The versions by number, the one now among them.
  private let byVersion: [Int: Version]
  /// Versions answered whose survey is not kept: their responses are read with the version now's
  /// columns.
  private let unkept: Set<Int>
  private let current: Int
  /// The number of each option in its question's columns (`Q2_3`: 3), and each question's code.
  private let optionNumbers: [QuestionID: [ChoiceID: Int]]
  private let codes: [QuestionID: String]
  /// What each column reads, column by column, found when the table is made so that a row looks
  /// nothing up by hashing but its answers' labels (a row's look-ups by question and option, each
  /// hashing its ids, took two fifths of its time).
  private let reads: [Read]
  /// Where a row keeps the answers the columns read: a place per question (a screening question
  /// apart from the survey's own of the same id). (A dictionary of the answers made per response,
  /// and looked up per column, took a tenth of a row's time.)
  private let places: [Place: Int]
  /// The places of the version now's own and screening questions in its order, as a response
  /// lists its answers: each answer is looked for at its own index first, then in `places`.
  private let ownPlaces: [(question: QuestionID, place: Int)]
  private let screeningPlaces: [(question: QuestionID, place: Int)]

  private struct Place: Hashable {
    let question: QuestionID
    let screening: Bool
  }

  /// A column's value, the place of the answer it reads (or -1), and its question's option and
  /// scale labels by id (a text, option or row column's; empty for the others). Without the
  /// column's code and heading: copying the columns, long headings and all, took a tenth of a
  /// row's time.
  private struct Read: Sendable {
    let value: Column.Value
    let place: Int
    let labels: [ChoiceID: String]
  }

  /// What a version asked: to tell "not shown" from "not picked".
  private struct Version: Sendable {
    let survey: Survey
    /// Its own questions, when no condition decides which are shown.
    let always: Set<QuestionID>?
    /// By column: whether this version asks the column's question (for a question of its own,
    /// when no condition decides; a screening question is asked of those screened) and offers
    /// its option.
    let asks: [Bool]
    let offers: [Bool]
    let cells: QuotaCells?

    init(_ survey: Survey, reads: [Read]) {
      self.survey = survey
      let screeningQuestions = Set(survey.screening?.questions.map(\.id) ?? [])
      let ownQuestions = Set(survey.questions.map(\.id))
      always = survey.questions.contains { $0.condition != nil } ? nil : ownQuestions
      let options = Dictionary(survey.allQuestions.map { ($0.id, Set($0.choices.map(\.id))) }) { first, _ in first }
      asks = reads.map { read in
        switch read.value {
        case let .answer(question, screening), let .option(question, _, screening), let .row(question, _, screening):
          screening ? screeningQuestions.contains(question) : ownQuestions.contains(question)
        default: false
        }
      }
      offers = reads.map { read in
        if case let .option(question, choice, _) = read.value { options[question]?.contains(choice) == true } else { false }
      }
      cells = survey.cells
    }
  }

  /// The table of `survey` as it is now and the `earlier` versions of it; `unkept`, the versions
  /// answered that are not kept.
  public init(survey: Survey, earlier: [Survey] = [], unkept: Set<Int> = []) {
    self.unkept = unkept
    var columns: [Column] = [
      Column(code: "respondent", heading: "回答者", value: .respondent),
      Column(code: "outcome", heading: "結果", value: .outcome),
      Column(code: "version", heading: "版", value: .version),
      Column(code: "shown_at", heading: "表示日時", value: .shownAt),
      Column(code: "sent_at", heading: "回答日時", value: .sentAt),
      Column(code: "seconds", heading: "回答秒数", value: .seconds),
      Column(code: "flags", heading: "品質フラグ", value: .flags),
      Column(code: "points", heading: "付与ポイント", value: .paid),
      Column(code: "age_band", heading: "年代", value: .ageBand),
      Column(code: "gender", heading: "性別", value: .gender),
      Column(code: "prefecture", heading: "都道府県", value: .prefecture),
    ]
    let all = [survey] + earlier.filter { $0.version != survey.version }.sorted { $0.version > $1.version }
    if all.contains(where: { $0.cells != nil }) { columns.append(Column(code: "cell", heading: "割付セル", value: .cell)) }
    if all.contains(where: \.shufflesQuestions) { columns.append(Column(code: "question_order", heading: "設問の表示順", value: .questionOrder)) }

    /// Each question once, as its newest version has it, with every option and row any version
    /// had (the newest's first), and the versions that asked it.
    struct Merged {
      var question: SurveyQuestion
      var choices: [SurveyQuestion.Choice]
      var rows: [SurveyQuestion.GridRow]
      var versions: [Int]
      var shuffles: Bool
    }
    func merge(_ pick: (Survey) -> [SurveyQuestion]) -> [Merged] {
      var merged: [Merged] = []
      var index: [QuestionID: Int] = [:]
      for version in all {
        for question in pick(version) {
          let rows: [SurveyQuestion.GridRow] = if case let .grid(rows, _) = question.kind { rows } else { [] }
          guard let at = index[question.id] else {
            index[question.id] = merged.count
            merged.append(Merged(question: question, choices: question.choices, rows: rows, versions: [version.version], shuffles: question.shufflesChoices))
            continue
          }
          merged[at].versions.append(version.version)
          merged[at].choices += question.choices.filter { choice in !merged[at].choices.contains { $0.id == choice.id } }
          merged[at].rows += rows.filter { row in !merged[at].rows.contains { $0.id == row.id } }
          merged[at].shuffles = merged[at].shuffles || question.shufflesChoices
        }
      }
      return merged
    }

    var labels: [Place: [ChoiceID: String]] = [:]
    var optionNumbers: [QuestionID: [ChoiceID: Int]] = [:]
    var codes: [QuestionID: String] = [:]
    func add(_ merged: Merged, code: String, screening: Bool) {
      let question = merged.question
      codes[question.id] = code
      // A question, option or row not in every version says which asked it.
      let asked = merged.versions.count == all.count ? "" : "［第\(merged.versions.sorted().map(String.init).joined(separator: "・"))版］"
      let heading = "\(code)\(asked) \(question.text)"
      optionNumbers[question.id] = Dictionary(merged.choices.enumerated().map { ($1.id, $0 + 1) }) { first, _ in first }
      labels[Place(question: question.id, screening: screening)] = Dictionary(merged.choices.map { ($0.id, $0.label) }) { first, _ in first }
      switch question.kind {
      case .multipleChoice:
        for (index, choice) in merged.choices.enumerated() {
          let versions = all.filter { $0.allQuestions.first { $0.id == question.id }?.choices.contains { $0.id == choice.id } == true }
          let only = versions.count == all.count || !asked.isEmpty && versions.count == merged.versions.count
            ? "" : "［第\(versions.map(\.version).sorted().map(String.init).joined(separator: "・"))版］"
          columns.append(Column(
            code: "\(code)_\(index + 1)", heading: "\(heading)：\(choice.label)\(only)（1=選択 0=非選択 空欄=非表示）",
            value: .option(question.id, choice.id, screening: screening)
          ))
        }
      case .grid:
        for (index, row) in merged.rows.enumerated() {
          columns.append(Column(code: "\(code)_\(index + 1)", heading: "\(heading)：\(row.label)", value: .row(question.id, row.id, screening: screening)))
        }
      case .singleChoice, .attentionCheck, .freeText, .longText, .rating, .number:
        columns.append(Column(code: code, heading: heading, value: .answer(question.id, screening: screening)))
      }
      if merged.shuffles {
        columns.append(Column(code: "\(code)_order", heading: "\(code) 選択肢の表示順（番号）", value: .choiceOrder(question.id)))
      }
    }
    for (index, merged) in merge({ $0.screening?.questions ?? [] }).enumerated() { add(merged, code: "S\(index + 1)", screening: true) }
    for (index, merged) in merge(\.questions).enumerated() { add(merged, code: "Q\(index + 1)", screening: false) }
    self.columns = columns
    var places: [Place: Int] = [:]
    let reads = columns.map { column in
      let place: Place? =
        switch column.value {
        case let .answer(question, screening), let .option(question, _, screening), let .row(question, _, screening):
          Place(question: question, screening: screening)
        default: nil
        }
      guard let place else { return Read(value: column.value, place: -1, labels: [:]) }
      let at = places[place] ?? places.count
      places[place] = at
      return Read(value: column.value, place: at, labels: labels[place] ?? [:])
    }
    self.reads = reads
    self.places = places
    self.ownPlaces = survey.questions.compactMap { question in places[Place(question: question.id, screening: false)].map { (question.id, $0) } }
    self.screeningPlaces = (survey.screening?.questions ?? []).compactMap { question in
      places[Place(question: question.id, screening: true)].map { (question.id, $0) }
    }
    self.optionNumbers = optionNumbers
    self.codes = codes
    self.byVersion = Dictionary(all.map { ($0.version, Version($0, reads: reads)) }) { first, _ in first }
    self.current = survey.version
  }

  /// The versions it has columns for, oldest first.
  public var versions: [Int] { byVersion.keys.sorted() }

  /// Whether it was made for the responses of `version`: its columns, or those of the version now
  /// for a version answered that is not kept.
  public func reads(_ version: Int) -> Bool { byVersion[version] != nil || unkept.contains(version) }

  /// A response's cells, column by column.
  public func row(_ response: SurveyResponse) -> [Cell] {
    // Each question's first answer in its place.
    var given = [SurveyAnswer.Value?](repeating: nil, count: places.count)
    func keep(_ answers: [SurveyAnswer], _ expected: [(question: QuestionID, place: Int)], screening: Bool) {
      for (index, answer) in answers.enumerated() {
        let at =
          index < expected.count && expected[index].question == answer.questionID
          ? expected[index].place : places[Place(question: answer.questionID, screening: screening)]
        if let at, given[at] == nil { given[at] = answer.value }
      }
    }
    keep(response.answers, ownPlaces, screening: false)
    keep(response.screening, screeningPlaces, screening: true)
    let version = byVersion[response.version] ?? byVersion[current]!
    // Its own questions were shown to a respondent who answered them (completed, or invalid).
    let ownShown = response.outcome == .completed || response.outcome == .invalid
    let shown: Set<QuestionID> = !ownShown ? [] : version.always ?? version.survey.shownQuestions(given: response.screening + response.answers)
    func isShown(_ question: QuestionID, column: Int, screening: Bool) -> Bool {
      if screening { return !response.screening.isEmpty && version.asks[column] }
      return ownShown && (version.always == nil ? shown.contains(question) : version.asks[column])
    }
    var cells: [Cell] = []
    cells.reserveCapacity(reads.count)
    for (column, read) in reads.enumerated() {
      let cell: Cell =
        switch read.value {
        case .respondent: .text(response.respondent)
        case .outcome: .text(response.outcome.title)
        case .version: .number(response.version)
        case .shownAt: response.shownAt.map { .text(Self.format($0)) } ?? .empty
        case .sentAt: .text(Self.format(response.sentAt))
        case .seconds: response.shownAt.map { .number(Int(response.sentAt.timeIntervalSince($0).rounded(.down))) } ?? .empty
        case .flags: .text(response.flags.isEmpty ? "" : response.flags.map(\.rawValue).joined(separator: " "))
        case .paid: .number(response.paid.value)
        case .ageBand: response.ageBand.map { .text(Self.ageBand($0)) } ?? .empty
        case .gender: response.gender.map { .text($0.title) } ?? .empty
        case .prefecture: response.prefecture.map { .text($0.title) } ?? .empty
        case .cell:
          if let name = response.cell, let cells = version.cells, let cell = cells.cells.first(where: { $0.name == name }) {
            .text(cells.label(of: cell, in: version.survey))
          } else {
            .empty
          }
        case .questionOrder:
          response.order?.questions.map { .text($0.map { codes[$0] ?? $0.rawValue }.joined(separator: " ")) } ?? .empty
        case let .choiceOrder(question) where !shown.contains(question):
          .empty  // not shown to them: no order to tell
        case let .choiceOrder(question):
          response.order?.choices[question].map { order in .text(order.map { optionNumbers[question]?[$0].map(String.init) ?? $0.rawValue }.joined(separator: " ")) } ?? .empty
        case .answer:
          switch given[read.place] {
          case let .choice(choice)?: .text(read.labels[choice] ?? choice.rawValue)
          case let .text(text)?: .text(text)
          case let .rating(value)?, let .number(value)?: .number(value)
          // Answered as a multiple choice in an earlier version: its picks, by label.
          case let .choices(picked)?: .text(picked.map { read.labels[$0] ?? $0.rawValue }.joined(separator: "、"))
          case .grid?, nil: .empty
          }
        case let .option(question, choice, screening):
          switch given[read.place] {
          // The options picked (a single choice, the question's kind in an earlier version: its
          // one); an option their version did not offer is blank, not 0.
          case let .choices(picked)?: picked.contains(choice) ? .number(1) : version.offers[column] ? .number(0) : .empty
          case let .choice(picked)?: picked == choice ? .number(1) : version.offers[column] ? .number(0) : .empty
          // Shown and left empty (an optional question) picked nothing; not shown is blank.
          default: isShown(question, column: column, screening: screening) && version.offers[column] ? .number(0) : .empty
          }
        case let .row(_, row, _):
          if case let .grid(cells)? = given[read.place], let cell = cells.first(where: { $0.row == row }) {
            .text(read.labels[cell.choice] ?? cell.choice.rawValue)
          } else {
            .empty
          }
        }
      cells.append(cell)
    }
    return cells
  }

  /// `30代`, made once for each band a person can be in.
  private static let ageBands = (0...12).map { "\($0 * 10)代" }
  private static func ageBand(_ band: Int) -> String {
    band >= 0 && band % 10 == 0 && band / 10 < ageBands.count ? ageBands[band / 10] : "\(band)代"
  }

  /// Tokyo time to the second, as a spreadsheet reads a date: `2026-11-22 12:00:00`. Counted from
  /// the zone's offset, as `Day` is (the calendar's component arithmetic took a tenth of an
  /// export's time).
  public static func format(_ date: Date) -> String {
    let (day, second) = Day.split(date, in: .tokyo)
    var text: [UInt8] = []
    text.reserveCapacity(19)
    day.appendISO(to: &text)
    let (space, colon) = (UInt8(ascii: " "), UInt8(ascii: ":"))
    for (separator, number) in [(space, second / 3_600), (colon, second / 60 % 60), (colon, second % 60)] {
      text.append(separator)
      Day.append(number, digits: 2, to: &text)
    }
    return String(decoding: text, as: UTF8.self)
  }
}
