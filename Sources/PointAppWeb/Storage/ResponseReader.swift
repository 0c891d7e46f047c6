import Foundation
import PointApp

/// Reads a stored response (`SurveyResponse` as `SavedJSON` writes it) several times faster than
/// `JSONDecoder`, for the export, which reads them by the hundred thousand: each field read from
/// the bytes straight into its value, keys compared as bytes. It knows this one format only; anything else (a
/// field it does not know, a number with a fraction, a date in another shape) makes it throw, and
/// the caller decodes with `JSONDecoder` instead (`ResponseReaderTests` proves the two agree).
/// Bytes that are not UTF-8 (never written by us) are read with replacement characters, where
/// `JSONDecoder` would refuse the whole record.
enum ResponseReader {
  struct Unreadable: Error {}

  static func response(from data: Data) throws -> SurveyResponse {
    try data.withUnsafeBytes { bytes in
      var parser = Parser(bytes: bytes)
      let response = try parser.response()
      parser.skipSpace()
      guard parser.index == bytes.count else { throw Unreadable() }
      return response
    }
  }

  private static func unreadable<T>() throws -> T { throw Unreadable() }

  /// `2026-11-24T03:04:05Z`, as the `.iso8601` strategy writes a date: whole seconds, UTC.
  private static func date(_ text: UnsafeRawBufferPointer) throws -> Date {
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
    let era = (y >= 0 ? y : y - 399) / 400
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

    // The response's fields as they come, straight into their values: no tree of the record
    // first (an array per object and a string per key, a fifth of the export's time).

    mutating func response() throws -> SurveyResponse {
      var (ageBand, gender, prefecture, shownAt): (Int?, Gender?, Prefecture?, Date?) = (nil, nil, nil, nil)
      var (answers, screening, flags, reviewed): ([SurveyAnswer], [SurveyAnswer], [QualityCheck], Bool?) = ([], [], [], nil)
      var (surveyID, version, respondent, outcome, sentAt, paid): (String?, Int?, String?, SurveyResponse.Outcome?, Date?, PointAmount?)
      var (order, cell): (ShownOrder?, String?) = (nil, nil)
      try fields { parser, key in
        switch key {
        case "ageBand": ageBand = try parser.integer()
        case "answers": answers = try parser.elements { try $0.answer() }
        case "cell": cell = try parser.string()
        case "order": order = try parser.shownOrder()
        case "flags": flags = try parser.elements { try QualityCheck(rawValue: $0.string()) ?? unreadable() }
        case "gender": gender = try Gender(rawValue: parser.string()) ?? unreadable()
        case "outcome": outcome = try SurveyResponse.Outcome(rawValue: parser.string()) ?? unreadable()
        case "paid": paid = try PointAmount(parser.integer()) ?? unreadable()
        case "prefecture": prefecture = try Prefecture(rawValue: parser.string()) ?? unreadable()
        case "respondent": respondent = try parser.string()
        case "reviewed": reviewed = try parser.bool()
        case "screening": screening = try parser.elements { try $0.answer() }
        case "sentAt": sentAt = try parser.date()
        case "shownAt": shownAt = try parser.date()
        case "surveyID": surveyID = try parser.string()
        case "version": version = try parser.integer()
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

    /// `{"choices":{"<question>":["<choice>",…]},"questions":["<question>",…]}`, `questions`
    /// absent when they kept the survey's order.
    mutating func shownOrder() throws -> ShownOrder {
      var (questions, choices): ([QuestionID]?, [QuestionID: [ChoiceID]]?) = (nil, nil)
      try fields { parser, key in
        switch key {
        case "questions": questions = try parser.elements { QuestionID(try $0.string()) }
        case "choices":
          var found: [QuestionID: [ChoiceID]] = [:]
          try parser.members { parser in
            let question = QuestionID(try parser.string())
            try parser.colon()
            guard found.updateValue(try parser.elements { ChoiceID(try $0.string()) }, forKey: question) == nil else { throw Unreadable() }
          }
          choices = found
        default: throw Unreadable()
        }
      }
      guard let choices else { throw Unreadable() }
      return ShownOrder(questions: questions, choices: choices)
    }

    mutating func answer() throws -> SurveyAnswer {
      var (question, answer): (String?, SurveyAnswer.Value?) = (nil, nil)
      try fields { parser, key in
        switch key {
        case "questionID": question = try parser.string()
        case "value": answer = try parser.answerValue()
        default: throw Unreadable()
        }
      }
      guard let question, let answer else { throw Unreadable() }
      return SurveyAnswer(questionID: QuestionID(question), value: answer)
    }

    /// An enum case with its one value: `{"choice":{"_0":…}}`.
    mutating func answerValue() throws -> SurveyAnswer.Value {
      var read: SurveyAnswer.Value?
      try fields { parser, kind in
        guard read == nil else { throw Unreadable() }
        try parser.fields { parser, key in
          guard case "_0" = key, read == nil else { throw Unreadable() }
          switch kind {
          case "choice": read = .choice(ChoiceID(try parser.string()))
          case "choices": read = .choices(try parser.elements { ChoiceID(try $0.string()) })
          case "text": read = .text(try parser.string())
          case "rating": read = .rating(try parser.integer())
          case "number": read = .number(try parser.integer())
          case "grid": read = .grid(try parser.elements { try $0.gridCell() })
          default: throw Unreadable()
          }
        }
        guard read != nil else { throw Unreadable() }
      }
      guard let read else { throw Unreadable() }
      return read
    }

    mutating func gridCell() throws -> GridCell {
      var (row, choice): (String?, String?) = (nil, nil)
      try fields { parser, key in
        switch key {
        case "row": row = try parser.string()
        case "choice": choice = try parser.string()
        default: throw Unreadable()
        }
      }
      guard let row, let choice else { throw Unreadable() }
      return GridCell(row: row, choice: ChoiceID(choice))
    }

    // MARK: JSON

    /// A key as its bytes: this format's keys are ASCII names without escapes (one with an
    /// escape is not this format's).
    struct Key {
      let bytes: UnsafeRawBufferPointer

      static func ~= (name: StaticString, key: Key) -> Bool {
        name.utf8CodeUnitCount == key.bytes.count && (key.bytes.isEmpty || memcmp(name.utf8Start, key.bytes.baseAddress!, key.bytes.count) == 0)
      }
    }

    /// An object: `member` reads each member, its key, colon and value.
    mutating func members(_ member: (inout Parser) throws -> Void) throws {
      skipSpace()
      guard try take(UInt8(ascii: "{")) else { throw Unreadable() }
      skipSpace()
      if try take(UInt8(ascii: "}")) { return }
      repeat {
        skipSpace()
        try member(&self)
        skipSpace()
      } while try take(UInt8(ascii: ","))
      guard try take(UInt8(ascii: "}")) else { throw Unreadable() }
    }

    /// An object whose keys are this format's names: `field` reads each one's value.
    mutating func fields(_ field: (inout Parser, Key) throws -> Void) throws {
      try members { parser in
        guard try parser.take(UInt8(ascii: "\"")) else { throw Unreadable() }
        let start = parser.index
        while parser.index < parser.bytes.count, parser.bytes[parser.index] != UInt8(ascii: "\""), parser.bytes[parser.index] != UInt8(ascii: "\\") {
          parser.index += 1
        }
        guard try parser.take(UInt8(ascii: "\"")) else { throw Unreadable() }
        let key = Key(bytes: UnsafeRawBufferPointer(rebasing: parser.bytes[start..<(parser.index - 1)]))
        try parser.colon()
        try field(&parser, key)
      }
    }

    /// An array: `element` reads each element.
    mutating func elements<Element>(_ element: (inout Parser) throws -> Element) throws -> [Element] {
      skipSpace()
      guard try take(UInt8(ascii: "[")) else { throw Unreadable() }
      var elements: [Element] = []
      skipSpace()
      if try take(UInt8(ascii: "]")) { return elements }
      repeat {
        skipSpace()
        elements.append(try element(&self))
        skipSpace()
      } while try take(UInt8(ascii: ","))
      guard try take(UInt8(ascii: "]")) else { throw Unreadable() }
      return elements
    }

    mutating func colon() throws {
      skipSpace()
      guard try take(UInt8(ascii: ":")) else { throw Unreadable() }
      skipSpace()
    }

    mutating func bool() throws -> Bool {
      guard index < bytes.count else { throw Unreadable() }
      if bytes[index] == UInt8(ascii: "t") {
        try word("true")
        return true
      }
      try word("false")
      return false
    }

    /// A date as `ResponseReader.date(_:)` reads it, from the string's bytes.
    mutating func date() throws -> Date {
      guard try take(UInt8(ascii: "\"")), index + 21 <= bytes.count, bytes[index + 20] == UInt8(ascii: "\"") else { throw Unreadable() }
      let date = try ResponseReader.date(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + 20)]))
      index += 21
      return date
    }

    mutating func take(_ byte: UInt8) throws -> Bool {
      guard index < bytes.count else { throw Unreadable() }
      guard bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func word(_ word: StaticString) throws {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count,
        (0..<count).allSatisfy({ bytes[index + $0] == word.utf8Start[$0] })
      else { throw Unreadable() }
      index += count
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
