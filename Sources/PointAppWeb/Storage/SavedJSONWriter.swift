import Foundation
import PointApp

/// Writes the records every answer writes (a user's saved state, the response, its survey's
/// counts) as the bytes `JSONEncoder` gives for their `Codable` form (sorted keys, ISO 8601 dates
/// to the second), without it: its per-value cost made encoding the largest part of every POST.
/// `SavedJSONWriterTests` and `SavedResponseWriterTests` hold the two byte for byte equal. They are
/// read by `Decodable` (an export's responses by `ResponseReader`, which falls back to it).
struct SavedJSONWriter {
  private var out: [UInt8] = []

  /// The bytes of `SavedState.File(state)`.
  static func data(for state: AppFeature.State) -> Data {
    written(reserving: 4_096) { $0.write(state) }
  }

  /// The bytes of a stored response (`ResponseStore`).
  static func data(for response: SurveyResponse) -> Data {
    written(reserving: 512) { $0.write(response) }
  }

  /// The bytes of a survey's stored counts (`ResponseStore`).
  static func data(for counts: ResponseStore.StoredCounts) -> Data {
    written(reserving: 512) { writer in
      writer.byte("{")
      writer.key("counts", first: true)
      writer.write(counts.counts)
      writer.byte("}")
    }
  }

  private static func written(reserving capacity: Int, _ write: (inout Self) -> Void) -> Data {
    var writer = SavedJSONWriter()
    writer.out.reserveCapacity(capacity)
    write(&writer)
    return Data(writer.out)
  }

  // MARK: The saved shape, keys in sorted order

  private mutating func write(_ state: AppFeature.State) {
    byte("{")
    var first = true
    if let draft = state.draft {
      key("draft", first: true)
      first = false
      byte("{")
      key("answers", first: true)
      dictionary(draft.answers.map { ($0.key.rawValue, $0.value) }) { writer, values in writer.array(values) { $0.string($1) } }
      if let page = draft.page { key("page"); int(page) }
      key("surveyID"); string(draft.surveyID.rawValue)
      byte("}")
    }
    if let email = state.enteredEmail {
      key("enteredEmail", first: first)
      first = false
      string(email)
    }
    if let flash = state.flash {
      key("flash", first: first)
      first = false
      byte("{"); key("kind", first: true); string(flash.kind.rawValue); key("message"); string(flash.message); byte("}")
    }
    if let draft = state.profileDraft {
      key("profileDraft", first: first)
      first = false
      byte("{")
      key("birthYear", first: true); string(draft.birthYear)
      key("gender"); string(draft.gender)
      key("occupation"); string(draft.occupation)
      key("prefecture"); string(draft.prefecture)
      byte("}")
    }
    key("progress", first: first)
    write(state.progress)
    key("schemaVersion"); int(SavedState.schemaVersion)
    byte("}")
  }

  private mutating func write(_ progress: UserProgress) {
    byte("{")
    key("achievements", first: true)
    dictionary(progress.achievements.map { ($0.key.rawValue, $0.value) }) { $0.date($1) }
    key("answered")
    dictionary(progress.answered.map { ($0.key.rawValue, $0.value) }) { writer, answered in
      writer.byte("{")
      writer.key("answers", first: true)
      writer.array(answered.answers) { $0.write($1) }
      writer.key("date"); writer.date(answered.date)
      if let outcome = answered.outcome { writer.key("outcome"); writer.string(outcome.rawValue) }
      writer.key("reward"); writer.int(answered.reward.value)
      if let version = answered.version { writer.key("version"); writer.int(version) }
      writer.byte("}")
    }
    key("answeredCount"); int(progress.answeredCount)
    if progress.exchangeCount > 0 { key("exchangeCount"); int(progress.exchangeCount) }
    if !progress.exchanges.isEmpty {
      key("exchanges")
      array(progress.exchanges) { $0.write($1) }
    }
    if progress.invalidCount > 0 { key("invalidCount"); int(progress.invalidCount) }
    key("ledger"); write(progress.ledger)
    key("missions"); write(progress.missions)
    if !progress.notices.isEmpty {
      let notices = progress.notices
      key("notices")
      byte("{")
      key("invited", first: true)
      dictionary(notices.invited.map { ($0.key.rawValue, $0.value) }) { $0.date($1) }
      if let reminded = notices.reminded { key("reminded"); array(reminded) { $0.string($1.rawValue) } }
      key("stopped"); array(notices.stopped) { $0.string($1.rawValue) }
      key("warned"); array(notices.warned) { $0.string($1.iso) }
      byte("}")
    }
    if !progress.opened.isEmpty {
      key("opened")
      dictionary(progress.opened.map { ($0.key.rawValue, $0.value) }) { $0.date($1) }
    }
    if let profile = progress.profile {
      key("profile")
      byte("{")
      key("birthYear", first: true); int(profile.birthYear)
      key("gender"); string(profile.gender.rawValue)
      key("occupation"); string(profile.occupation.rawValue)
      key("prefecture"); string(profile.prefecture.rawValue)
      byte("}")
    }
    if !progress.qualified.isEmpty {
      key("qualified")
      dictionary(progress.qualified.map { ($0.key.rawValue, $0.value) }) { $0.date($1) }
    }
    if !progress.reviewRequested.isEmpty {
      key("reviewRequested")
      array(progress.reviewRequested.map(\.rawValue).sorted()) { $0.string($1) }
    }
    if progress.screenedOutCount > 0 { key("screenedOutCount"); int(progress.screenedOutCount) }
    if !progress.screeningAnswers.isEmpty {
      key("screeningAnswers")
      dictionary(progress.screeningAnswers.map { ($0.key.rawValue, $0.value) }) { writer, answers in writer.array(answers) { $0.write($1) } }
    }
    key("streak"); write(progress.streak)
    byte("}")
  }

  private mutating func write(_ answer: SurveyAnswer) {
    byte("{")
    key("questionID", first: true); string(answer.questionID.rawValue)
    key("value")
    switch answer.value {
    case let .choice(id): associated("choice") { $0.string(id.rawValue) }
    case let .choices(ids): associated("choices") { $0.array(ids) { $0.string($1.rawValue) } }
    case let .text(text): associated("text") { $0.string(text) }
    case let .rating(rating): associated("rating") { $0.int(rating) }
    case let .number(number): associated("number") { $0.int(number) }
    case let .grid(cells):
      associated("grid") { writer in
        writer.array(cells) { writer, cell in
          writer.byte("{"); writer.key("choice", first: true); writer.string(cell.choice.rawValue)
          writer.key("row"); writer.string(cell.row); writer.byte("}")
        }
      }
    }
    byte("}")
  }

  private mutating func write(_ response: SurveyResponse) {
    byte("{")
    if let ageBand = response.ageBand { key("ageBand", first: true); int(ageBand) }
    key("answers", first: response.ageBand == nil)
    array(response.answers) { $0.write($1) }
    if let cell = response.cell { key("cell"); string(cell) }
    key("flags"); array(response.flags) { $0.string($1.rawValue) }
    if let gender = response.gender { key("gender"); string(gender.rawValue) }
    if let order = response.order {
      key("order")
      byte("{")
      key("choices", first: true)
      dictionary(order.choices.map { ($0.key.rawValue, $0.value) }) { writer, choices in writer.array(choices) { $0.string($1.rawValue) } }
      if let questions = order.questions { key("questions"); array(questions) { $0.string($1.rawValue) } }
      byte("}")
    }
    key("outcome"); string(response.outcome.rawValue)
    key("paid"); int(response.paid.value)
    if let prefecture = response.prefecture { key("prefecture"); string(prefecture.rawValue) }
    key("respondent"); string(response.respondent)
    key("reviewed"); literal(response.reviewed ? "true" : "false")
    key("screening"); array(response.screening) { $0.write($1) }
    key("sentAt"); date(response.sentAt)
    if let shownAt = response.shownAt { key("shownAt"); date(shownAt) }
    key("surveyID"); string(response.surveyID.rawValue)
    key("version"); int(response.version)
    byte("}")
  }

  private mutating func write(_ counts: ResponseCounts) {
    func numbers(_ entries: [(String, Int)]) { dictionary(entries) { $0.int($1) } }
    byte("{")
    key("byOutcome", first: true); numbers(counts.byOutcome.map { ($0.key.rawValue, $0.value) })
    if let byVersion = counts.byVersion { key("byVersion"); numbers(byVersion.map { (String($0.key), $0.value) }) }
    key("completesByDay"); numbers(counts.completesByDay.map { ($0.key, $0.value) })
    key("picks")
    dictionary(counts.picks.map { ($0.key, $0.value) }) { writer, picks in
      writer.dictionary(picks.map { ($0.key, $0.value) }) { $0.int($1) }
    }
    key("reviewed"); int(counts.reviewed)
    key("seconds"); numbers(counts.seconds.map { (String($0.key), $0.value) })
    byte("}")
  }

  private mutating func write(_ ledger: PointLedger) {
    byte("{")
    key("archivedCount", first: true); int(ledger.archivedCount)
    key("earnings"); int(ledger.earnings.value)
    key("lots")
    byte("{")
    key("lots", first: true)
    array(ledger.lots.lots) { writer, lot in
      writer.byte("{")
      writer.key("earned", first: true); writer.int(lot.earned.value)
      writer.key("month"); writer.string(lot.month.iso)
      writer.key("remaining"); writer.int(lot.remaining.value)
      writer.byte("}")
    }
    if ledger.lots.owed > .zero { key("owed"); int(ledger.lots.owed.value) }
    byte("}")
    key("recent")
    array(ledger.recent) { writer, transaction in
      writer.byte("{")
      writer.key("amount", first: true); writer.int(transaction.amount.value)
      writer.key("date"); writer.date(transaction.date)
      writer.key("id"); writer.string(transaction.id.rawValue.uuidString)
      writer.key("reason")
      switch transaction.reason {
      case let .surveyReward(id): writer.associated("surveyReward") { $0.string(id.rawValue) }
      case let .missionBonus(kind): writer.associated("missionBonus") { $0.string(kind.rawValue) }
      case let .exchange(id): writer.associated("exchange") { $0.string(id.rawValue) }
      case .profileBonus: writer.byte("{"); writer.key("profileBonus", first: true); writer.byte("{"); writer.byte("}"); writer.byte("}")
      case let .screeningConsolation(id): writer.associated("screeningConsolation") { $0.string(id.rawValue) }
      case let .expiry(month): writer.associated("expiry") { $0.string(month.iso) }
      case let .rankBonus(id): writer.associated("rankBonus") { $0.string(id.rawValue) }
      case let .exchangeHold(number, id): writer.request("exchangeHold", number, id)
      case let .exchangeRefund(number, id): writer.request("exchangeRefund", number, id)
      case let .adjustmentCredit(reason): writer.associated("adjustmentCredit") { $0.string(reason) }
      case let .adjustmentDebit(reason): writer.associated("adjustmentDebit") { $0.string(reason) }
      }
      writer.byte("}")
    }
    key("totalEarned"); int(ledger.totalEarned.value)
    key("totalSpent"); int(ledger.totalSpent.value)
    byte("}")
  }

  private mutating func write(_ request: ExchangeRequest) {
    byte("{")
    key("key", first: true); string(request.key.rawValue.uuidString)
    key("number"); int(request.number)
    key("option"); string(request.option.rawValue)
    key("points"); int(request.points.value)
    key("requestedAt"); date(request.requestedAt)
    key("status")
    byte("{")
    switch request.status {
    case let .pending(attempts):
      key("pending", first: true); byte("{"); key("attempts", first: true); int(attempts); byte("}")
    case let .fulfilled(code, at):
      key("fulfilled", first: true); byte("{"); key("at", first: true); date(at); key("code"); sealed(code); byte("}")
    case let .failed(at, refundID):
      key("failed", first: true); byte("{"); key("at", first: true); date(at); key("refundID"); string(refundID.rawValue.uuidString); byte("}")
    }
    byte("}")
    byte("}")
  }

  private mutating func write(_ missions: MissionBoard) {
    byte("{")
    key("claimed", first: true)
    array(DailyMission.Kind.allCases.filter(missions.claimed.contains)) { $0.string($1.rawValue) }
    if let day = missions.day { key("day"); int(day.ordinal) }
    key("pointsEarned"); int(missions.pointsEarned)
    key("surveysAnswered"); int(missions.surveysAnswered)
    key("visited"); literal(missions.visited ? "true" : "false")
    byte("}")
  }

  private mutating func write(_ streak: Streak) {
    byte("{")
    key("current", first: true); int(streak.current)
    if let lastVisit = streak.lastVisit { key("lastVisit"); int(lastVisit.ordinal) }
    key("longest"); int(streak.longest)
    byte("}")
  }

  /// An exchange request's movement, as `Codable` writes `case name(request:option:)`.
  private mutating func request(_ name: String, _ number: Int, _ option: ExchangeOption.ID) {
    byte("{"); key(name, first: true)
    byte("{"); key("option", first: true); string(option.rawValue); key("request"); int(number); byte("}")
    byte("}")
  }

  // MARK: JSON

  /// An enum case with one associated value, as `Codable` synthesises it: `{"case":{"_0":…}}`.
  private mutating func associated(_ name: String, _ value: (inout Self) -> Void) {
    byte("{"); key(name, first: true); byte("{"); key("_0", first: true); value(&self); byte("}"); byte("}")
  }

  private mutating func dictionary<Value>(_ entries: [(String, Value)], _ value: (inout Self, Value) -> Void) {
    byte("{")
    // As `JSONEncoder` sorts keys: by their UTF-8 bytes (`String`'s `<` compares them normalized,
    // which orders a key not in NFC elsewhere).
    for (index, entry) in entries.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }).enumerated() {
      key(entry.0, first: index == 0)
      value(&self, entry.1)
    }
    byte("}")
  }

  private mutating func array<Element>(_ elements: some Collection<Element>, _ element: (inout Self, Element) -> Void) {
    byte("[")
    for (index, item) in elements.enumerated() {
      if index > 0 { byte(",") }
      element(&self, item)
    }
    byte("]")
  }

  private mutating func key(_ name: String, first: Bool = false) {
    if !first { byte(",") }
    string(name)
    byte(":")
  }

  private mutating func int(_ value: Int) { literal(String(value)) }

  private mutating func literal(_ text: String) { out.append(contentsOf: text.utf8) }

  /// A gift code as `GiftCode.encode` writes it with the process's keys (a code that cannot be
  /// sealed, which AES-GCM never refuses, would be written plain).
  private mutating func sealed(_ code: GiftCode) {
    guard let sealed = try? CodeKeys.current.seal(code) else { return string(code.value) }
    byte("{"); key("box", first: true); string(sealed.box); key("digest"); string(sealed.digest); key("key"); string(sealed.key); byte("}")
  }

  private mutating func byte(_ character: Unicode.Scalar) { out.append(UInt8(character.value)) }

  /// Escapes as `JSONEncoder` with `.withoutEscapingSlashes`: quote, backslash and control
  /// characters; everything else as UTF-8.
  private mutating func string(_ text: String) {
    byte("\"")
    for unit in text.utf8 {
      switch unit {
      case UInt8(ascii: "\""): literal("\\\"")
      case UInt8(ascii: "\\"): literal("\\\\")
      case 0x08: literal("\\b")
      case 0x0C: literal("\\f")
      case 0x0A: literal("\\n")
      case 0x0D: literal("\\r")
      case 0x09: literal("\\t")
      case 0..<0x20:
        literal("\\u00")
        out.append(Self.hexDigits[Int(unit >> 4)])
        out.append(Self.hexDigits[Int(unit & 0x0F)])
      default: out.append(unit)
      }
    }
    byte("\"")
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// `yyyy-MM-ddTHH:mm:ssZ` in UTC, seconds truncated; the civil date from the day count
  /// (proleptic Gregorian, as `ISO8601FormatStyle`).
  private mutating func date(_ date: Date) {
    let seconds = date.wholeSecondsSince1970
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let time = seconds - days * 86_400
    byte("\"")
    Day(ordinal: days).appendISO(to: &out)
    byte("T")
    Day.append(time / 3_600, digits: 2, to: &out); byte(":")
    Day.append(time / 60 % 60, digits: 2, to: &out); byte(":")
    Day.append(time % 60, digits: 2, to: &out)
    byte("Z")
    byte("\"")
  }
}
