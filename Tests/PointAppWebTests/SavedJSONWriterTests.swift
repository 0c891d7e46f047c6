import Dependencies
import Foundation
import PointApp
@testable import PointAppWeb
import Testing

/// `SavedState.data(for:)` writes its JSON by hand for speed; it must stay byte for byte what
/// `JSONEncoder` gives for the file's `Codable` form, which is what reads it back.
struct SavedJSONWriterTests {
  static let today = Day(noon, in: .tokyo)

  static func survey(_ id: String, reward: PointAmount) -> Survey {
    Survey(
      id: SurveyID(id), title: id, description: "", category: .food, questions: [], reward: reward,
      estimatedMinutes: 1, publishedAt: noon, expiresAt: nil
    )
  }

  static let v1Fixture = try! SavedState.state(from: version1File)

  /// Every kind of answer and movement, text that needs escaping, dates before 1970, on a leap day
  /// and with fractions of a second.
  static var everything: AppFeature.State {
    var progress = UserProgress()
    let texts = ["say \"hi\"\\ / back", "line\nbreak\ttab\u{01}\u{1F}", "絵文字🎉とカナ", ""]
    let dates = [
      Date(timeIntervalSince1970: -0.5), Date(timeIntervalSince1970: 951_782_400.999), noon + 0.7,
      Date(timeIntervalSince1970: 4_102_444_799),
    ]
    for (number, date) in dates.enumerated() {
      let answers = [
        SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("c-\(number)"))),
        SurveyAnswer(questionID: QuestionID("q2"), value: .choices([ChoiceID("a"), ChoiceID("b\"")])),
        SurveyAnswer(questionID: QuestionID("q3"), value: .text(texts[number])),
        SurveyAnswer(questionID: QuestionID("q4"), value: .rating(number + 1)),
      ]
      progress.recordAnswer(
        to: survey("survey-\(number)", reward: 800), with: answers, id: TransactionID(UUID()), at: date, on: today
      )
    }
    // A big reward earns a rank for the month after, whose bonus is paid; then its points expire.
    progress.recordAnswer(to: survey("big", reward: 40_000), with: [], id: TransactionID(UUID()), at: noon - 86_400 * 40, on: today)
    progress.recordAnswer(
      to: survey("with bonus", reward: 100), with: [], id: TransactionID(UUID()), at: noon, on: today, bonusID: { TransactionID(UUID()) }
    )
    progress.recordVisit(on: today, at: noon)
    try! progress.claimMission(.visit, id: TransactionID(UUID()), at: noon, on: today)
    try! progress.requestExchange(ExchangeOption.all[0], id: TransactionID(UUID()), at: noon + 1)
    progress.qualify(for: SurveyID("passed \"screening\""), at: noon + 2)
    progress.screenOut(
      of: survey("screened\nout", reward: 300), consolation: 3,
      with: [SurveyAnswer(questionID: QuestionID("s1"), value: .choice(ChoiceID("no")))], id: TransactionID(UUID()), at: noon + 2
    )
    progress.saveProfile(Profile(birthYear: 1996, gender: .noAnswer, prefecture: .okinawa, occupation: .other), id: TransactionID(UUID()), at: noon + 2)
    progress.saveProfile(Profile(birthYear: 1901, gender: .female, prefecture: .hokkaido, occupation: .student), id: TransactionID(UUID()), at: noon + 3)
    progress.expire(at: noon + 86_400 * 400) { TransactionID(UUID()) }
    var state = AppFeature.State()
    state.profileDraft = ProfileDraft(birthYear: "１９\"9", gender: "\\", prefecture: "東京\n", occupation: "")
    state.progress = progress
    state.flash = Flash(.error, "「引用」と \"quotes\"\n改行")
    state.enteredEmail = "\"quoted\"@例え.jp"
    state.draft = SurveyDraft(
      [QuestionID("q1"): ["a\"", "改行\n"], QuestionID("q2"): [], QuestionID("not asked"): ["x"]],
      of: Survey(
        id: SurveyID("drafted"), title: "", description: "", category: .food,
        questions: ["q1", "q2", "q3"].map { SurveyQuestion(id: QuestionID($0), text: "", kind: .rating) },
        reward: 1, estimatedMinutes: 1, publishedAt: noon, expiresAt: nil
      )
    )
    return state
  }

  /// A ledger that owes points its lots did not hold (read from a file of version 3, whose
  /// spending passed its earnings): no operation of today's domain makes one.
  static var owing: AppFeature.State {
    var file = try! JSONSerialization.jsonObject(with: SavedState.data(for: everything)) as! [String: Any]
    var progress = file["progress"] as! [String: Any]
    var ledger = progress["ledger"] as! [String: Any]
    ledger["lots"] = ["lots": [] as [Any], "owed": 7]
    progress["ledger"] = ledger
    file["progress"] = progress
    let state = try! SavedState.state(from: JSONSerialization.data(withJSONObject: file))
    precondition(state.progress.ledger.lots.owed == 7)
    return state
  }

  @Test(arguments: [AppFeature.State(), v1Fixture, everything, owing])
  func writesWhatJSONEncoderWrites(state: AppFeature.State) throws {
    let written = SavedState.data(for: state)
    let encoded = try SavedJSON.encodeByCodable(SavedState.File(state))
    #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    #expect(SavedState.data(for: try SavedState.state(from: written)) == written)
  }

  /// A moment in the last nanoseconds of a second (the clock's reading can be one): the writer
  /// counts its second as `JSONEncoder` does, so that an answer's date and its response's agree.
  @Test func aMomentJustBeforeASecondIsWrittenInThatSecond() throws {
    let moment = Date(timeIntervalSinceReferenceDate: noon.timeIntervalSinceReferenceDate.nextDown)
    var state = AppFeature.State()
    state.progress.recordAnswer(to: testCatalog[0], with: [], id: TransactionID(UUID(1)), at: moment, on: Self.today)
    try writesWhatJSONEncoderWrites(state: state)
    #expect(String(decoding: SavedState.data(for: state), as: UTF8.self).contains("T02:59:59Z"))
    let midnight = Date(timeIntervalSinceReferenceDate: (noon + 12 * 3600).timeIntervalSinceReferenceDate.nextDown)
    #expect(Day(midnight, in: .tokyo) == Self.today, "the last moment of a Tokyo day is that day's")
  }

  @Test func severalClaimedMissionsRoundTrip() throws {
    var progress = UserProgress()
    progress.recordVisit(on: Self.today, at: noon)
    progress.recordAnswer(to: testCatalog[0], with: [], id: TransactionID(UUID(1)), at: noon, on: Self.today)
    try progress.claimMission(.answerOne, id: TransactionID(UUID(2)), at: noon, on: Self.today)
    try progress.claimMission(.visit, id: TransactionID(UUID(3)), at: noon, on: Self.today)
    var state = AppFeature.State()
    state.progress = progress
    let saved = SavedState.data(for: state)
    #expect(try SavedState.state(from: saved).progress.missions == progress.missions)
    #expect(String(decoding: saved, as: UTF8.self).contains(#""claimed":["visit","answerOne"]"#))
  }
}

/// The writer against `JSONEncoder` over many generated users: a hand-written encoder is most
/// likely wrong in a combination nobody thought to write down.
struct SavedJSONWriterRandomTests {
  static let count = 3_000

  @Test func generatedStatesAreWrittenAsJSONEncoderWritesThemAndReadBack() throws {
    var random = SplitMix64(seed: 20_261_123)
    var seen: Set<String> = []
    for number in 0..<Self.count {
      let history = GeneratedHistory(&random)
      let state = history.state()
      let written = SavedState.data(for: state)
      let encoded = try SavedJSON.encodeByCodable(SavedState.File(state))
      #expect(String(decoding: written, as: UTF8.self) == String(decoding: encoded, as: UTF8.self), "state \(number)")
      // The file keeps whole seconds, and archived answers live in the archive, not in the file.
      var expected = history.state { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) }
      expected.progress.archivedAnswers = [:]
      #expect(try SavedState.state(from: written) == expected, "state \(number)")
      seen.formUnion(GeneratedHistory.features(of: state, written: written))
    }
    #expect(seen == GeneratedHistory.allFeatures, "the generator reaches every case")
  }

  /// The test above holds the writer to `JSONEncoder` only for what the generator makes: a stored
  /// property it leaves empty would be dropped by the writer unseen. So every stored property of
  /// the saved shape (`SavedState.File` and what it holds, read from the types themselves) must be
  /// set in some generated state and appear in what is written for it, or be named below as not
  /// saved.
  @Test func everyStoredPropertyIsGeneratedAndWritten() {
    /// Properties kept in memory only: in the archive, or derived when read.
    let notSaved: Set<String> = ["UserProgress.archivedAnswers"]
    var random = SplitMix64(seed: 20_261_126)
    var unset: Set<String> = []
    var unwritten: [String: Int] = [:]
    var seen: Set<String> = []
    for number in 0..<Self.count {
      let state = number == 0 ? SavedJSONWriterTests.owing : GeneratedHistory(&random).state()
      // A key as the writer writes it (in a string, a quote is escaped: `\"`).
      let written = String(decoding: SavedState.data(for: state), as: UTF8.self)
      var fields: [String: Bool] = [:]
      StoredProperties.collect(SavedState.File(state), into: &fields, skipping: notSaved)
      for (field, isSet) in fields {
        if !isSet { unset.insert(field); continue }
        seen.insert(field)
        if !written.contains("\"\(field.split(separator: ".").last!)\":") { unwritten[field, default: 0] += 1 }
      }
    }
    let neverSet = unset.subtracting(seen).subtracting(notSaved).sorted()
    #expect(neverSet.isEmpty, "stored properties the generator never sets (generate them, or name them as not saved): \(neverSet)")
    let dropped = Set(unwritten.keys).subtracting(notSaved).sorted()
    #expect(dropped.isEmpty, "stored properties set but not written (SavedJSONWriter must write them): \(dropped)")
    #expect(notSaved.isSubset(of: seen.union(unset)), "every exclusion names a stored property")
  }
}

/// The stored properties of a value of the app's own types, found by reflection, as
/// `Type.property` (an enum's case: `Type.case`; a case's labelled values: `Type.case.label`), each
/// with whether it holds something here (not `nil`, empty, 0 or `false`, nor made only of those). A type of one stored
/// property is a wrapper, written as that value (an id, an amount, a day): its property has no key.
enum StoredProperties {
  static func collect(_ value: Any, into fields: inout [String: Bool], skipping: Set<String>, owner: String? = nil) {
    let mirror = Mirror(reflecting: value)
    let type = String(reflecting: Swift.type(of: value))
    switch mirror.displayStyle {
    case .struct?, .class?, .enum?:
      guard type.hasPrefix("PointApp.") || type.hasPrefix("PointAppWeb.") else { return }
      let name = type.split(separator: ".").dropFirst().joined(separator: ".")
      let wrapper = mirror.displayStyle != .enum && mirror.children.count == 1
      for child in mirror.children {
        guard let label = child.label else { continue }
        let field = "\(name).\(label)"
        guard !skipping.contains(field) else {
          fields[field] = (fields[field] ?? false) || holdsSomething(child.value)
          continue
        }
        if !wrapper { fields[field] = (fields[field] ?? false) || holdsSomething(child.value) }
        collect(child.value, into: &fields, skipping: skipping, owner: field)
      }
    case .tuple? where owner != nil:
      // A case's values.
      for child in mirror.children {
        if let owner, let label = child.label, !label.hasPrefix(".") {
          let field = "\(owner).\(label)"
          fields[field] = (fields[field] ?? false) || holdsSomething(child.value)
        }
        collect(child.value, into: &fields, skipping: skipping)
      }
    default:
      // Collections, optionals, a dictionary's (key, value) pairs: what they hold.
      for child in mirror.children { collect(child.value, into: &fields, skipping: skipping) }
    }
  }

  private static func holdsSomething(_ value: Any) -> Bool {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional?: return mirror.children.first.map { holdsSomething($0.value) } ?? false
    case .collection?, .dictionary?, .set?: return !mirror.children.isEmpty
    // A struct of several holds something when one of them does (an empty `Notices` is not written).
    case .struct? where !mirror.children.isEmpty: return mirror.children.contains { holdsSomething($0.value) }
    default: break
    }
    if let number = value as? Int { return number != 0 }
    if let flag = value as? Bool { return flag }
    return true
  }
}

/// A user's history as the domain's own operations, so that it can be replayed with other dates.
struct GeneratedHistory {
  enum Step {
    case answer(Survey, [SurveyAnswer], TransactionID, Date)
    case visit(Date)
    case claim(DailyMission.Kind, TransactionID, Date)
    case exchange(ExchangeOption, TransactionID, Date)
    /// The newest exchange request ends: fulfilled with a code, or failed and refunded with the id.
    case endExchange(String?, TransactionID, Date)
    /// The newest exchange request is tried once more (its issuer did not answer).
    case attempt
    /// Points expired by then are written off, with ids counted up from the one given.
    case expire(TransactionID, Date)
    case profile(Profile, TransactionID, Date)
    case screenOut(Survey, [SurveyAnswer], PointAmount, TransactionID, Date)
    case qualify(SurveyID, [SurveyAnswer], Date)
    case open(SurveyID, Date)
    case review(SurveyID)
    case invalid(Survey, [SurveyAnswer], Date)
    /// The support desk moves points, with a reason: a credit when positive, else a debit.
    case adjust(Int, String, TransactionID, Date)
    /// A list of notices stopped or started.
    case notices(NoticeList, Bool)
    /// An invitation to the survey, decided at the date.
    case invite(Survey, Date)
    /// A reminder of a survey closing soon, at the date.
    case remind(Survey, Date)
    /// The expiry warnings due at the date.
    case warn(Date)
    case archive
  }

  var steps: [Step] = []
  var flash: Flash?
  var draft: SurveyDraft?
  var enteredEmail: String?
  var profileDraft: ProfileDraft?

  static let pieces = [
    "a", "Z", "0", " ", "/", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{8}", "\u{C}", "\u{1F}", "\u{7F}",
    "é", "ポイ活", "日本語", "🎉", "👨‍👩‍👧", "\u{2028}", "\u{FEFF}", "\\u0041",
  ]
  static let rewards: [PointAmount] = [0, 1, 40, 999, 1_000_003, 1_099_511_627_776, PointAmount(Int.max >> 8)!]
  static let ratings = [Int.min, -1, 0, 1, 3, 5, Int.max]

  init(_ random: inout SplitMix64) {
    // Starting between 1901 and 2093, so that some are before 1970. Steps are at the same moment
    // or a second or more apart: truncated to seconds they stay in order, which archiving follows.
    var now = Double(Int.random(in: -2_170_000_000...3_900_000_000, using: &random))
      + [0, 0.001, 0.5, 0.999_999].randomElement(using: &random)!
    for _ in 0..<Int.random(in: 0...(Bool.random(using: &random) ? 12 : 90), using: &random) {
      now += [0, 1, 59.75, 3_600, 86_400, 86_400, 86_400 * 2 + 0.25, 86_400 * 40].randomElement(using: &random)!
      let date = Date(timeIntervalSince1970: now)
      let id = TransactionID(UUID(uuid: uuid(&random)))
      switch Int.random(in: 0..<28, using: &random) {
      case 0..<8:
        let survey = Survey(
          id: SurveyID(Bool.random(using: &random) ? "s\(Int.random(in: 0..<40, using: &random))" : text(&random)),
          title: "", description: "", category: .food, questions: [],
          reward: Self.rewards.randomElement(using: &random)!, estimatedMinutes: 1, publishedAt: date, expiresAt: nil,
          version: [1, 1, 2, 17].randomElement(using: &random)!
        )
        let answers = (0..<Int.random(in: 0...4, using: &random)).map { _ in
          SurveyAnswer(questionID: QuestionID(text(&random)), value: value(&random))
        }
        steps.append(.answer(survey, answers, id, date))
      case 8..<11: steps.append(.visit(date))
      case 11: steps.append(.expire(id, date + 86_400 * Double(Int.random(in: 0...800, using: &random))))
      case 12..<15: steps.append(.claim(DailyMission.Kind.allCases.randomElement(using: &random)!, id, date))
      case 15..<17: steps.append(.exchange(ExchangeOption.all.randomElement(using: &random)!, id, date))
      case 17 where Bool.random(using: &random): steps.append(.attempt)
      case 17: steps.append(.endExchange(Bool.random(using: &random) ? text(&random) : nil, id, date))
      case 18:
        let profile = Profile(
          birthYear: Int.random(in: 1900...2100, using: &random), gender: Gender.allCases.randomElement(using: &random)!,
          prefecture: Prefecture.allCases.randomElement(using: &random)!, occupation: Occupation.allCases.randomElement(using: &random)!
        )
        steps.append(.profile(profile, id, date))
      case 19 where Bool.random(using: &random):
        let survey = SurveyID(Bool.random(using: &random) ? "s\(Int.random(in: 0..<40, using: &random))" : text(&random))
        let answers = (0..<Int.random(in: 0...2, using: &random)).map { _ in
          SurveyAnswer(questionID: QuestionID(text(&random)), value: value(&random))
        }
        steps.append(.qualify(survey, answers, date))
      case 19:
        let survey = Survey(
          id: SurveyID(Bool.random(using: &random) ? "s\(Int.random(in: 0..<40, using: &random))" : text(&random)),
          title: "", description: "", category: .food, questions: [], reward: 1, estimatedMinutes: 1, publishedAt: date, expiresAt: nil
        )
        let answers = [SurveyAnswer(questionID: QuestionID(text(&random)), value: value(&random))]
        steps.append(.screenOut(survey, answers, Self.rewards.randomElement(using: &random)!, id, date))
      case 20 where Bool.random(using: &random):
        let survey = SurveyID(Bool.random(using: &random) ? "s\(Int.random(in: 0..<40, using: &random))" : text(&random))
        steps.append(Bool.random(using: &random) ? .open(survey, date) : .review(survey))
      case 20:
        let survey = Survey(
          id: SurveyID("s\(Int.random(in: 0..<40, using: &random))"), title: "", description: "", category: .food, questions: [],
          reward: 1, estimatedMinutes: 1, publishedAt: date, expiresAt: nil, version: Int.random(in: 1...3, using: &random)
        )
        steps.append(.invalid(survey, [SurveyAnswer(questionID: QuestionID(text(&random)), value: value(&random))], date))
      case 21:
        steps.append(.adjust([-1_000, -1, 1, 250, 50_000].randomElement(using: &random)!, text(&random), id, date))
      case 22: steps.append(.notices(NoticeList.allCases.randomElement(using: &random)!, Bool.random(using: &random)))
      case 23:
        let survey = Survey(
          id: SurveyID(Bool.random(using: &random) ? "s\(Int.random(in: 0..<40, using: &random))" : text(&random)),
          title: "", description: "", category: .food, questions: [], reward: 1, estimatedMinutes: 1, publishedAt: date - 1,
          expiresAt: Bool.random(using: &random) ? nil : date + 86_400
        )
        // Published a second before: open at the moment truncated to the second too.
        steps.append(.invite(survey, date))
        if Bool.random(using: &random) { steps.append(.remind(survey, date)) }
      case 24: steps.append(.warn(date + 86_400 * Double(Int.random(in: 330...400, using: &random))))
      default: steps.append(.archive)
      }
    }
    if Int.random(in: 0..<3, using: &random) > 0 {
      flash = Flash(Bool.random(using: &random) ? .success : .error, text(&random))
    }
    if Int.random(in: 0..<3, using: &random) == 0 {
      enteredEmail = text(&random)
    }
    if Int.random(in: 0..<4, using: &random) == 0 {
      profileDraft = ProfileDraft(birthYear: text(&random), gender: text(&random), prefecture: text(&random), occupation: text(&random))
    }
    if Bool.random(using: &random) {
      let questions = (0..<Int.random(in: 0...4, using: &random)).map { _ in QuestionID(text(&random)) }
      let survey = Survey(
        id: SurveyID(text(&random)), title: "", description: "", category: .food,
        questions: questions.map { SurveyQuestion(id: $0, text: "", kind: .rating) },
        reward: 1, estimatedMinutes: 1, publishedAt: Date(timeIntervalSince1970: 0), expiresAt: nil
      )
      let answers = questions.map { ($0, (0..<Int.random(in: 0...3, using: &random)).map { _ in text(&random) }) }
      draft = SurveyDraft(Dictionary(answers, uniquingKeysWith: { first, _ in first }), of: survey, page: Int.random(in: 0...2, using: &random))
    }
  }

  /// The state the steps lead to, each moment passed through `date`; days stay those of the
  /// moments as generated.
  func state(date: (Date) -> Date = { $0 }) -> AppFeature.State {
    var progress = UserProgress()
    for step in steps {
      switch step {
      case let .answer(survey, answers, id, at):
        progress.recordAnswer(to: survey, with: answers, id: id, at: date(at), on: Day(at, in: .tokyo), bonusID: { id.next(1) })
      case let .expire(id, at):
        var count = 0
        progress.expire(at: date(at)) {
          count += 1
          return id.next(count)
        }
      case let .visit(at):
        progress.recordVisit(on: Day(at, in: .tokyo), at: date(at))
      case let .claim(kind, id, at):
        try? progress.claimMission(kind, id: id, at: date(at), on: Day(at, in: .tokyo))
      case let .exchange(option, id, at):
        try? progress.requestExchange(option, id: id, at: date(at))
      case let .endExchange(code, id, at):
        if let code {
          progress.fulfilExchange(progress.exchangeCount, with: GiftCode(code), at: date(at))
        } else {
          progress.failExchange(progress.exchangeCount, refundID: id, at: date(at))
        }
      case .attempt:
        progress.noteExchangeAttempt(progress.exchangeCount)
      case let .profile(profile, id, at):
        progress.saveProfile(profile, id: id, at: date(at))
      case let .screenOut(survey, answers, consolation, id, at):
        progress.screenOut(of: survey, consolation: consolation, with: answers, id: id, at: date(at))
      case let .qualify(survey, answers, at):
        progress.qualify(for: survey, at: date(at), with: answers)
      case let .open(survey, at):
        progress.open(survey, at: date(at))
      case let .review(survey):
        progress.requestReview(of: survey)
      case let .invalid(survey, answers, at):
        progress.recordInvalid(to: survey, with: answers, at: date(at))
      case let .adjust(points, reason, id, at):
        try? progress.adjustPoints(by: points, reason: reason, id: id, at: date(at))
      case let .notices(list, on):
        _ = progress.setNotices(list, on: on)
      case let .invite(survey, at):
        _ = progress.invite(to: survey, at: date(at))
      case let .remind(survey, at):
        _ = progress.remind(of: survey, at: date(at))
      case let .warn(at):
        _ = progress.expiryWarning(at: date(at))
      case .archive:
        _ = progress.takeArchivable()
      }
    }
    var state = AppFeature.State()
    state.progress = progress
    state.flash = flash
    state.draft = draft
    state.enteredEmail = enteredEmail
    state.profileDraft = profileDraft
    return state
  }

  static let allFeatures: Set<String> = [
    "choice", "choices", "text", "rating", "number", "grid", "surveyReward", "missionBonus", "adjustmentCredit", "adjustmentDebit", "exchangeHold", "exchangeRefund", "pending", "fulfilled", "expiry", "rankBonus", "several lots", "no flash", "success", "draft", "entered email",
    "profile", "profileBonus", "profile draft", "screeningConsolation", "screened out", "qualified", "opened", "review requested", "invalid",
    "error", "archived movements", "archived answers", "several missions claimed", "streak", "broken streak",
    "several achievements", "notices stopped", "invited", "reminded", "warned", "before 1970", "fraction of a second", "zero amount", "large amount",
    #"\""#, #"\\"#, #"\n"#, #"\u00"#, "🎉", "日本語",
  ]

  /// What of `allFeatures` a state shows.
  static func features(of state: AppFeature.State, written: Data) -> Set<String> {
    let progress = state.progress
    var found: Set<String> = [state.flash.map { $0.kind.rawValue } ?? "no flash"]
    if state.draft != nil { found.insert("draft") }
    if state.enteredEmail != nil { found.insert("entered email") }
    if state.profileDraft != nil { found.insert("profile draft") }
    if progress.profile != nil { found.insert("profile") }
    if progress.answered.values.contains(where: { !$0.isCompleted }) { found.insert("screened out") }
    if !progress.qualified.isEmpty { found.insert("qualified") }
    if !progress.opened.isEmpty { found.insert("opened") }
    if !progress.reviewRequested.isEmpty { found.insert("review requested") }
    if progress.invalidCount > 0 { found.insert("invalid") }
    if !progress.notices.stopped.isEmpty { found.insert("notices stopped") }
    if !progress.notices.invited.isEmpty { found.insert("invited") }
    if progress.notices.reminded != nil { found.insert("reminded") }
    if !progress.notices.warned.isEmpty { found.insert("warned") }
    for answer in progress.answered.values.flatMap(\.answers) {
      switch answer.value {
      case .choice: found.insert("choice")
      case .choices: found.insert("choices")
      case .text: found.insert("text")
      case .rating: found.insert("rating")
      case .number: found.insert("number")
      case .grid: found.insert("grid")
      }
    }
    for movement in progress.ledger.recent {
      switch movement.reason {
      case .surveyReward: found.insert("surveyReward")
      case .missionBonus: found.insert("missionBonus")
      case .exchange: found.insert("exchange")
      case .profileBonus: found.insert("profileBonus")
      case .screeningConsolation: found.insert("screeningConsolation")
      case .expiry: found.insert("expiry")
      case .rankBonus: found.insert("rankBonus")
      case .exchangeHold: found.insert("exchangeHold")
      case .exchangeRefund: found.insert("exchangeRefund")
      case .adjustmentCredit: found.insert("adjustmentCredit")
      case .adjustmentDebit: found.insert("adjustmentDebit")
      }
      if movement.date.timeIntervalSince1970 < 0 { found.insert("before 1970") }
      if movement.date.timeIntervalSince1970.rounded(.down) != movement.date.timeIntervalSince1970 {
        found.insert("fraction of a second")
      }
      if movement.amount == 0 { found.insert("zero amount") }
      if movement.amount.value >= 1 << 40 { found.insert("large amount") }
    }
    if progress.ledger.archivedCount > 0 { found.insert("archived movements") }
    if progress.ledger.lots.lots.count > 1 { found.insert("several lots") }
    for request in progress.exchanges {
      switch request.status {
      case .pending: found.insert("pending")
      case .fulfilled: found.insert("fulfilled")
      case .failed: break  // with its refund
      }
    }
    if progress.answeredCount > progress.answered.count { found.insert("archived answers") }
    if progress.missions.claimed.count > 1 { found.insert("several missions claimed") }
    if progress.streak.current > 1 { found.insert("streak") }
    if progress.streak.longest > progress.streak.current { found.insert("broken streak") }
    if progress.achievements.count > 1 { found.insert("several achievements") }
    let json = String(decoding: written, as: UTF8.self)
    for escape in [#"\""#, #"\\"#, #"\n"#, #"\u00"#, "🎉", "日本語"] where json.contains(escape) {
      found.insert(escape)
    }
    return found
  }
}

extension TransactionID {
  /// Another id made from this one: its last byte counted up by `offset`.
  func next(_ offset: Int) -> TransactionID {
    var bytes = rawValue.uuid
    bytes.15 = bytes.15 &+ UInt8(truncatingIfNeeded: offset)
    return TransactionID(UUID(uuid: bytes))
  }
}

private func text(_ random: inout SplitMix64) -> String {
  (0..<Int.random(in: 0...6, using: &random)).map { _ in GeneratedHistory.pieces.randomElement(using: &random)! }.joined()
}

private func value(_ random: inout SplitMix64) -> SurveyAnswer.Value {
  switch Int.random(in: 0..<6, using: &random) {
  case 0: .choice(ChoiceID(text(&random)))
  case 1: .choices((0..<Int.random(in: 0...3, using: &random)).map { _ in ChoiceID(text(&random)) })
  case 2: .text(text(&random))
  case 3: .number(GeneratedHistory.ratings.randomElement(using: &random)!)
  case 4: .grid((0..<Int.random(in: 0...3, using: &random)).map { _ in GridCell(row: text(&random), choice: ChoiceID(text(&random))) })
  default: .rating(GeneratedHistory.ratings.randomElement(using: &random)!)
  }
}

private func uuid(_ random: inout SplitMix64) -> uuid_t {
  let (high, low) = (random.next(), random.next())
  return withUnsafeBytes(of: (high, low)) { $0.load(as: uuid_t.self) }
}

/// The response and the survey's counts every answer writes: `SavedJSON.encode` takes them from
/// `SavedJSONWriter`, which must give `JSONEncoder`'s bytes, read back as the value written.
struct SavedResponseWriterTests {
  static let answers = [
    SurveyAnswer(questionID: QuestionID("q1"), value: .choice(ChoiceID("c\"1"))),
    SurveyAnswer(questionID: QuestionID("q2"), value: .choices([ChoiceID("a"), ChoiceID("b")])),
    SurveyAnswer(questionID: QuestionID("q3"), value: .text("改行\nと \"引用\" \\ / \u{01}🎉")),
    SurveyAnswer(questionID: QuestionID("q4"), value: .rating(5)),
    SurveyAnswer(questionID: QuestionID("q5"), value: .number(-12)),
    SurveyAnswer(questionID: QuestionID("q6"), value: .grid([GridCell(row: "r1", choice: ChoiceID("x")), GridCell(row: "行2", choice: ChoiceID("y"))])),
  ]

  /// Every property set, dates with fractions of a second and before 1970.
  static let everything = SurveyResponse(
    surveyID: SurveyID("s-1"), version: 3, respondent: "r\"x", outcome: .invalid, answers: answers,
    screening: [SurveyAnswer(questionID: QuestionID("s1"), value: .choice(ChoiceID("yes")))],
    shownAt: Date(timeIntervalSince1970: -0.5), sentAt: noon + 0.7, flags: [.speeding, .attention], reviewed: true, paid: 40,
    ageBand: 30, gender: .noAnswer, prefecture: .okinawa,
    order: ShownOrder(questions: [QuestionID("q2"), QuestionID("q1")], choices: [QuestionID("q2"): [ChoiceID("b"), ChoiceID("a")], QuestionID("q1"): []]),
    cell: "女性 30代"
  )

  static let plain = SurveyResponse(
    surveyID: SurveyID("s"), version: 1, respondent: "r", outcome: .completed, answers: [], shownAt: nil, sentAt: noon, paid: 10
  )

  static let shownInTheSurveysOrder = SurveyResponse(
    surveyID: SurveyID("s"), version: 1, respondent: "r", outcome: .screenedOut, answers: [], shownAt: noon, sentAt: noon, paid: 0,
    order: ShownOrder(questions: nil, choices: [:])
  )

  @Test(arguments: [everything, plain, shownInTheSurveysOrder])
  func aResponseIsWrittenAsJSONEncoderWritesIt(_ response: SurveyResponse) throws {
    let written = SavedJSONWriter.data(for: response)
    #expect(String(decoding: written, as: UTF8.self) == String(decoding: try SavedJSON.encodeByCodable(response), as: UTF8.self))
    #expect(try SavedJSON.encode(response) == written, "the record layer's encoding is the writer's")
    let read = try SavedJSON.decode(SurveyResponse.self, from: written)
    #expect(SavedJSONWriter.data(for: read) == written, "it reads back as written (to the second)")
  }

  /// A property added to the response and set here is written, or this fails.
  @Test func everyPropertyOfTheResponseIsSetAndWritten() throws {
    var fields: [String: Bool] = [:]
    StoredProperties.collect(Self.everything, into: &fields, skipping: [])
    let written = String(decoding: try SavedJSON.encode(Self.everything), as: UTF8.self)
    #expect(fields.filter { !$0.value }.isEmpty, "set every property in `everything`: \(fields.filter { !$0.value }.keys.sorted())")
    let unwritten = fields.keys.filter { !written.contains("\"\($0.split(separator: ".").last!)\":") }
    #expect(unwritten.isEmpty, "not written: \(unwritten.sorted())")
  }

  @Test func aSurveysCountsAreWrittenAsJSONEncoderWritesThem() throws {
    var counts = ResponseCounts()
    for (index, response) in [Self.everything, Self.plain, Self.shownInTheSurveysOrder].enumerated() {
      counts.add(response)
      if index == 0 { counts.add(response.approved(paying: 40)) }
    }
    counts.seconds[2] = 1
    counts.seconds[10] = 4  // "10" comes before "2"
    // Keys in the order of their UTF-8 bytes, as `JSONEncoder` puts them: a decomposed "é" (e and
    // a combining accent) before "f", which `String`'s `<` (on the composed form) puts after it.
    counts.picks["q\u{301}"] = ["e\u{301}": 1, "f": 2]
    var old = counts
    old.byVersion = nil  // counts kept before versions were counted
    for each in [ResponseCounts(), counts, old] {
      let stored = ResponseStore.StoredCounts(counts: each)
      let written = SavedJSONWriter.data(for: stored)
      #expect(String(decoding: written, as: UTF8.self) == String(decoding: try SavedJSON.encodeByCodable(stored), as: UTF8.self))
      #expect(try SavedJSON.encode(stored) == written, "the record layer's encoding is the writer's")
      #expect(try SavedJSON.decode(ResponseStore.StoredCounts.self, from: written) == stored)
    }
    var fields: [String: Bool] = [:]
    StoredProperties.collect(ResponseStore.StoredCounts(counts: counts), into: &fields, skipping: [])
    #expect(fields.filter { !$0.value }.isEmpty, "set every property of the counts here: \(fields.filter { !$0.value }.keys.sorted())")
  }
}
