import Foundation
import PointApp

/// Reads a stored response (`SurveyResponse` as `SavedJSON` writes it) several times faster than
/// `JSONDecoder`, for the export, which reads them by the hundred thousand: the bytes parsed into
/// a small tree, the tree read field by field. It knows this one format only; anything else (a
/// field it does not know, a number with a fraction, a date in another shape) makes it throw, and
/// the caller decodes with `JSONDecoder` instead (`ResponseReaderTests` proves the two agree).
/// Bytes that are not UTF-8 (never written by us) are read with replacement characters, where
/// `JSONDecoder` would refuse the whole record.
enum ResponseReader {
  struct Unreadable: Error {}

  static func response(from data: Data) throws -> SurveyResponse {
    try data.withUnsafeBytes { bytes in
      var parser = Parser(bytes: bytes)
      let node = try parser.value()
      parser.skipSpace()
      guard parser.index == bytes.count else { throw Unreadable() }
      return try response(node)
    }
  }

  /// Not `indirect`: the arrays hold what nests, and a box per value cost a malloc each.
  private enum Node {
    case object([(key: String, value: Node)])
    case array([Node])
    case string(String)
    case number(Int)
    case bool(Bool)
    case null
  }

  private static func response(_ node: Node) throws -> SurveyResponse {
    var (ageBand, gender, prefecture, shownAt): (Int?, Gender?, Prefecture?, Date?) = (nil, nil, nil, nil)
    var (answers, screening, flags, reviewed): ([SurveyAnswer], [SurveyAnswer], [QualityCheck], Bool?) = ([], [], [], nil)
    var (surveyID, version, respondent, outcome, sentAt, paid): (String?, Int?, String?, SurveyResponse.Outcome?, Date?, PointAmount?)
    var (order, cell): (ShownOrder?, String?) = (nil, nil)
    for (key, value) in try fields(node) {
      switch key {
      case "ageBand": ageBand = try int(value)
      case "answers": answers = try array(value).map(answer)
      case "cell": cell = try string(value)
      case "order": order = try shownOrder(value)
      case "flags": flags = try array(value).map { try QualityCheck(rawValue: string($0)) ?? unreadable() }
      case "gender": gender = try Gender(rawValue: string(value)) ?? unreadable()
      case "outcome": outcome = try SurveyResponse.Outcome(rawValue: string(value)) ?? unreadable()
      case "paid": paid = try PointAmount(int(value)) ?? unreadable()
      case "prefecture": prefecture = try Prefecture(rawValue: string(value)) ?? unreadable()
      case "respondent": respondent = try string(value)
      case "reviewed":
        guard case let .bool(flag) = value else { throw Unreadable() }
        reviewed = flag
      case "screening": screening = try array(value).map(answer)
      case "sentAt": sentAt = try date(value)
      case "shownAt": shownAt = try date(value)
      case "surveyID": surveyID = try string(value)
      case "version": version = try int(value)
      default: throw Unreadable()
      }
    }
    guard let surveyID, let version, let respondent, let outcome, let sentAt, let paid, let reviewed else { throw Unreadable() }
    return SurveyResponse(
      surveyID: SurveyID(surveyID), version: version, respondent: respondent, outcome: outcome, answers: answers, screening: screening,
      shownAt: shownAt, sentAt: sentAt, flags: flags, reviewed: reviewed, paid: paid, ageBand: ageBand, gender: gender,
      prefecture: prefecture, order: order, cell: cell
    )
  }

  /// `{"choices":{"<question>":["<choice>",…]},"questions":["<question>",…]}`, `questions` absent
  /// when they kept the survey's order.
  private static func shownOrder(_ node: Node) throws -> ShownOrder {
    var (questions, choices): ([QuestionID]?, [QuestionID: [ChoiceID]]?) = (nil, nil)
    for (key, value) in try fields(node) {
      switch key {
      case "questions": questions = try array(value).map { QuestionID(try string($0)) }
      case "choices":
        choices = try Dictionary(fields(value).map { (QuestionID($0.key), try array($0.value).map { ChoiceID(try string($0)) }) }) { _, _ in
          throw Unreadable()
        }
      default: throw Unreadable()
      }
    }
    guard let choices else { throw Unreadable() }
    return ShownOrder(questions: questions, choices: choices)
  }

  private static func answer(_ node: Node) throws -> SurveyAnswer {
    var (question, answer): (String?, SurveyAnswer.Value?) = (nil, nil)
    for (key, value) in try fields(node) {
      switch key {
      case "questionID": question = try string(value)
      case "value": answer = try self.value(value)
      default: throw Unreadable()
      }
    }
    guard let question, let answer else { throw Unreadable() }
    return SurveyAnswer(questionID: QuestionID(question), value: answer)
  }

  /// An enum case with its one value: `{"choice":{"_0":…}}`.
  private static func value(_ node: Node) throws -> SurveyAnswer.Value {
    let cases = try fields(node)
    guard cases.count == 1, let content = try fields(cases[0].value).first, content.key == "_0" else { throw Unreadable() }
    let value = content.value
    switch cases[0].key {
    case "choice": return .choice(ChoiceID(try string(value)))
    case "choices": return .choices(try array(value).map { ChoiceID(try string($0)) })
    case "text": return .text(try string(value))
    case "rating": return .rating(try int(value))
    case "number": return .number(try int(value))
    case "grid":
      return .grid(
        try array(value).map { cell in
          var (row, choice): (String?, String?) = (nil, nil)
          for (key, value) in try fields(cell) {
            switch key {
            case "row": row = try string(value)
            case "choice": choice = try string(value)
            default: throw Unreadable()
            }
          }
          guard let row, let choice else { throw Unreadable() }
          return GridCell(row: row, choice: ChoiceID(choice))
        })
    default: throw Unreadable()
    }
  }

  private static func fields(_ node: Node) throws -> [(key: String, value: Node)] {
    guard case let .object(fields) = node else { throw Unreadable() }
    return fields
  }

  private static func array(_ node: Node) throws -> [Node] {
    guard case let .array(elements) = node else { throw Unreadable() }
    return elements
  }

  private static func string(_ node: Node) throws -> String {
    guard case let .string(string) = node else { throw Unreadable() }
    return string
  }

  private static func int(_ node: Node) throws -> Int {
    guard case let .number(number) = node else { throw Unreadable() }
    return number
  }

  private static func unreadable<T>() throws -> T { throw Unreadable() }

  /// `2026-11-24T03:04:05Z`, as the `.iso8601` strategy writes a date: whole seconds, UTC.
  private static func date(_ node: Node) throws -> Date {
    var string = try string(node)
    return try string.withUTF8 { try date($0) }
  }

  private static func date(_ text: UnsafeBufferPointer<UInt8>) throws -> Date {
    guard text.count == 20, text[4] == 0x2D, text[7] == 0x2D, text[10] == 0x54, text[13] == 0x3A, text[16] == 0x3A, text[19] == 0x5A
    else { throw Unreadable() }
    func digits(_ range: Range<Int>) throws -> Int {
      try text[range].reduce(0) { total, byte in
        guard (0x30...0x39).contains(byte) else { throw Unreadable() }
        return total * 10 + Int(byte - 0x30)
      }
    }
    let (year, month, day) = (try digits(0..<4), try digits(5..<7), try digits(8..<10))
    let (hour, minute, second) = (try digits(11..<13), try digits(14..<16), try digits(17..<19))
    guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { throw Unreadable() }
    // Days from 1970-01-01 to the civil date (H. Hinnant's algorithm).
    let y = month <= 2 ? year - 1 : year
    let era = y / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
  }

  private struct Parser {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    mutating func skipSpace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x0A, 0x0D, 0x09: index += 1
        default: return
        }
      }
    }

    mutating func value() throws -> Node {
      skipSpace()
      guard index < bytes.count else { throw Unreadable() }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var fields: [(key: String, value: Node)] = []
        skipSpace()
        if try take(UInt8(ascii: "}")) { return .object(fields) }
        repeat {
          skipSpace()
          let key = try string()
          skipSpace()
          guard try take(UInt8(ascii: ":")) else { throw Unreadable() }
          fields.append((key, try value()))
          skipSpace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "}")) else { throw Unreadable() }
        return .object(fields)
      case UInt8(ascii: "["):
        index += 1
        var elements: [Node] = []
        skipSpace()
        if try take(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
          elements.append(try value())
          skipSpace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "]")) else { throw Unreadable() }
        return .array(elements)
      case UInt8(ascii: "\""):
        return .string(try string())
      case UInt8(ascii: "t"): return try word("true", .bool(true))
      case UInt8(ascii: "f"): return try word("false", .bool(false))
      case UInt8(ascii: "n"): return try word("null", .null)
      default:
        return .number(try integer())
      }
    }

    mutating func take(_ byte: UInt8) throws -> Bool {
      guard index < bytes.count else { throw Unreadable() }
      guard bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func word(_ word: StaticString, _ node: Node) throws -> Node {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count,
        (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] })
      else { throw Unreadable() }
      index += count
      return node
    }

    /// A whole number; one with a fraction or an exponent is not this format's.
    mutating func integer() throws -> Int {
      let negative = try take(UInt8(ascii: "-"))
      let start = index
      var number = 0
      while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
        let (times, overflow) = number.multipliedReportingOverflow(by: 10)
        let (sum, overflowed) = times.addingReportingOverflow(Int(bytes[index] - 0x30))
        guard !overflow, !overflowed else { throw Unreadable() }
        number = sum
        index += 1
      }
      guard index > start else { throw Unreadable() }
      if index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw Unreadable()
        default: break
        }
      }
      return negative ? -number : number
    }

    mutating func string() throws -> String {
      guard try take(UInt8(ascii: "\"")) else { throw Unreadable() }
      let start = index
      // Without escapes (most strings): the bytes as they are.
      while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
      guard index < bytes.count else { throw Unreadable() }
      if bytes[index] == UInt8(ascii: "\"") {
        index += 1
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
      }
      var text = Array(bytes[start..<index])
      while bytes[index] == UInt8(ascii: "\\") {
        index += 1
        guard index < bytes.count else { throw Unreadable() }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            // A pair of UTF-16 surrogates.
            guard try take(UInt8(ascii: "\\")), try take(UInt8(ascii: "u")) else { throw Unreadable() }
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw Unreadable() }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let unicode = Unicode.Scalar(scalar) else { throw Unreadable() }
          text.append(contentsOf: Array(String(Character(unicode)).utf8))
        default: throw Unreadable()
        }
        let from = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count else { throw Unreadable() }
        text.append(contentsOf: bytes[from..<index])
      }
      index += 1  // the closing quote
      return String(decoding: text, as: UTF8.self)
    }

    mutating func hex4() throws -> UInt32 {
      guard index + 4 <= bytes.count else { throw Unreadable() }
      var value: UInt32 = 0
      for _ in 0..<4 {
        let byte = bytes[index]
        let digit: UInt8
        switch byte {
        case 0x30...0x39: digit = byte - 0x30
        case 0x41...0x46: digit = byte - 0x37
        case 0x61...0x66: digit = byte - 0x57
        default: throw Unreadable()
        }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }
  }
}
