import CustomDump
import Foundation
@testable import PointApp
import Testing

/// What a user's progress gives the survey's client: one response per survey answered, whatever
/// its outcome, with the screening's answers, the times, the quality flags, the points paid and
/// only the profile attributes the survey targeted.
struct SurveyResponseTests {
  static let catalog: [SurveyID: Survey] = Dictionary(uniqueKeysWithValues: [Survey.screenedCoffee, .twenties, .sweets].map { ($0.id, $0) })

  func finished(_ before: UserProgress, _ after: UserProgress) -> [SurveyResponse] {
    SurveyResponse.finished(from: before, to: after, survey: { Self.catalog[$0] }, respondent: { "r-\($0.rawValue)" })
  }

  let drinks = SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("daily")))
  let five = SurveyAnswer(questionID: QuestionID("satisfaction"), value: .rating(5))

  @Test func aCompletedAnswerCarriesItsScreeningAndWhenItsQuestionsWereShown() {
    var before = UserProgress()
    before.qualify(for: Survey.screenedCoffee.id, at: noon - 120, with: [drinks])
    before.open(Survey.screenedCoffee.id, at: noon - 100)
    var after = before
    after.recordAnswer(to: .screenedCoffee, with: [five], id: TransactionID(UUID(1)), at: noon, on: today)
    expectNoDifference(finished(before, after), [
      SurveyResponse(
        surveyID: Survey.screenedCoffee.id, version: 1, respondent: "r-coffee", outcome: .completed, answers: [five],
        screening: [drinks], shownAt: noon - 100, sentAt: noon, paid: 50
      ),
    ])
    #expect(finished(after, after).isEmpty, "nothing newly answered, no response")
  }

  @Test func aScreenOutCarriesTheScreeningsAnswersAndItsConsolation() {
    let never = SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID("never")))
    let before = UserProgress()
    var after = before
    after.screenOut(of: .screenedCoffee, consolation: 3, with: [never], id: TransactionID(UUID(1)), at: noon)
    expectNoDifference(finished(before, after), [
      SurveyResponse(
        surveyID: Survey.screenedCoffee.id, version: 1, respondent: "r-coffee", outcome: .screenedOut, answers: [],
        screening: [never], shownAt: nil, sentAt: noon, paid: 3
      ),
    ])
  }

  @Test func aTargetedSurveysResponseKeepsTheAttributesItTargetedAndAnotherKeepsNone() {
    var before = UserProgress()
    before.saveProfile(.hanako, id: TransactionID(UUID(9)), at: noon - 600)
    var after = before
    after.recordAnswer(to: .twenties, with: [five], id: TransactionID(UUID(1)), at: noon, on: today)
    after.recordAnswer(to: .sweets, with: [five], id: TransactionID(UUID(2)), at: noon, on: today)
    let responses = finished(before, after)
    #expect(responses.map(\.surveyID) == [Survey.sweets.id, Survey.twenties.id])
    #expect(responses[1].ageBand == 20 && responses[1].gender == .female && responses[1].prefecture == .tokyo)
    #expect(responses[0].ageBand == nil && responses[0].gender == nil && responses[0].prefecture == nil, "sweets targets no one")
  }

  @Test func anInvalidAnswerCarriesTheChecksItFailedAndPaysNothing() {
    let careful = Survey(
      id: SurveyID("careful"), title: "t", description: "d", category: .food, questions: [.satisfaction], reward: 10,
      estimatedMinutes: 1, publishedAt: noon - 600, expiresAt: nil, quality: QualitySettings(minSecondsPerQuestion: 30), version: 3
    )
    var before = UserProgress()
    before.open(careful.id, at: noon - 5)
    var after = before
    after.recordInvalid(to: careful, with: [five], at: noon)
    let responses = SurveyResponse.finished(from: before, to: after, survey: { $0 == careful.id ? careful : nil }, respondent: { _ in "r" })
    #expect(responses.map(\.outcome) == [.invalid])
    #expect(responses.first?.flags == [.speeding])
    #expect(responses.first?.paid == .zero)
    #expect(responses.first?.version == 3, "the version answered")
  }

  @Test func anApprovedAnswerIsFoundOnceAndItsResponseCountsAsACompleteInstead() throws {
    var before = UserProgress()
    before.recordInvalid(to: .sweets, with: [five], at: noon - 60)
    before.recordInvalid(to: .twenties, with: [five], at: noon - 60)
    var after = before
    try after.approveInvalidAnswer(to: .sweets, id: TransactionID(UUID(1)), at: noon)
    let approvals = SurveyResponse.approvals(from: before, to: after)
    #expect(approvals.map(\.survey) == [Survey.sweets.id] && approvals.map(\.paid) == [Survey.sweets.reward])
    #expect(SurveyResponse.approvals(from: after, to: after).isEmpty, "approved once")
    #expect(SurveyResponse.approvals(from: UserProgress(), to: after).isEmpty, "a new complete is not an approval")

    let invalid = SurveyResponse(
      surveyID: Survey.sweets.id, version: 1, respondent: "r", outcome: .invalid, answers: [five], shownAt: noon - 65, sentAt: noon - 60,
      flags: [.speeding], reviewed: true, paid: .zero
    )
    var counts = ResponseCounts()
    counts.add(invalid)
    let onlyInvalid = counts
    let approved = invalid.approved(paying: Survey.sweets.reward)
    counts.remove(invalid)
    counts.add(approved)
    var fresh = ResponseCounts()
    fresh.add(approved)
    expectNoDifference(counts, fresh, "as if it had been a complete from the start")
    counts.remove(approved)
    counts.add(invalid)
    expectNoDifference(counts, onlyInvalid, "removing undoes adding, leaving no empty entries")
  }

  /// Counts kept apart (each process's, on files) add up to those of every response counted in
  /// one: an approval in one part of a response counted in the other included, which leaves that
  /// part below zero; no entry at zero is left. Counts kept before versions were counted stay so.
  @Test func countsKeptApartAddUpToTheCountsOfAll() {
    func response(_ respondent: String, _ outcome: SurveyResponse.Outcome, version: Int, at sentAt: Date) -> SurveyResponse {
      SurveyResponse(
        surveyID: Survey.sweets.id, version: version, respondent: respondent, outcome: outcome,
        answers: [five, SurveyAnswer(questionID: QuestionID("flavour"), value: .choice(ChoiceID(respondent == "r-1" ? "matcha" : "vanilla")))], shownAt: sentAt - 40,
        sentAt: sentAt, reviewed: outcome == .invalid, paid: outcome == .completed ? 10 : .zero
      )
    }
    let invalid = response("r-1", .invalid, version: 1, at: noon - 86_400)
    let others = [response("r-2", .completed, version: 1, at: noon), response("r-3", .completed, version: 2, at: noon + 60), response("r-4", .screenedOut, version: 2, at: noon)]
    var (here, there, all) = (ResponseCounts(), ResponseCounts(), ResponseCounts())
    here.add(invalid)
    for response in others { there.add(response) }
    there.remove(invalid)
    there.add(invalid.approved(paying: 10))
    for response in others + [invalid.approved(paying: 10)] { all.add(response) }
    expectNoDifference(here.adding(there), all)
    expectNoDifference(there.adding(here), all)
    expectNoDifference(ResponseCounts().adding(all), all)
    expectNoDifference(all.adding(ResponseCounts()), all)
    #expect(ResponseCounts().adding(ResponseCounts()) == ResponseCounts())
    var earlier = all
    earlier.byVersion = nil
    #expect(earlier.adding(here).byVersion == nil && earlier.adding(here).versionsAnswered(upTo: 2) == [1, 2])
  }

  /// A complete counts on its day in Tokyo, which begins at 15:00 UTC the day before.
  @Test func aCompleteCountsOnItsDayInTokyo() {
    let midnight = Date(timeIntervalSince1970: 1_795_359_600)  // 2026-11-23 00:00 in Tokyo
    var counts = ResponseCounts()
    for sentAt in [midnight - 1, midnight, midnight + 86_399] {
      counts.add(SurveyResponse(surveyID: Survey.sweets.id, version: 1, respondent: "r", outcome: .completed, answers: [five], shownAt: nil, sentAt: sentAt, paid: 10))
    }
    #expect(counts.completesByDay == ["2026-11-22": 1, "2026-11-23": 2])
  }
}

/// The export's dates: Tokyo's wall clock, counted without the calendar, the same as the calendar's.
struct ResponseTableDateTests {
  @Test(arguments: [0.0, 1_795_316_400, 951_782_400, 4_107_542_399, -86_401, 1_709_164_800])
  func datesAreTokyosWallClock(_ seconds: Double) {
    let date = Date(timeIntervalSince1970: seconds)
    let parts = Calendar.tokyo.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    let expected = String(format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    #expect(ResponseTable.format(date) == expected)
  }

  /// A day's name is the calendar's, zeros in front up to four digits of year and two of month
  /// and day; the days of the proleptic calendar before year 1000 and after 9999 are named too.
  @Test(arguments: [0.0, 1_795_316_400, 951_782_400, 4_107_542_399, -86_401, 1_709_164_800])
  func aDayIsNamedAsTheCalendarNamesIt(_ seconds: Double) {
    let date = Date(timeIntervalSince1970: seconds)
    let parts = Calendar.tokyo.dateComponents([.year, .month, .day], from: date)
    #expect(Day(date, in: .tokyo).iso == String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!))
  }

  @Test func aDaysNumbersAreWrittenInTheirWidths() {
    #expect(Day(ordinal: -354_585).iso == "0999-03-07" && Day(ordinal: 2_932_896).iso == "9999-12-31")
    #expect(Day(ordinal: 2_932_897).iso == "10000-01-01")
    func written(_ number: Int, _ digits: Int) -> String {
      var text: [UInt8] = []
      Day.append(number, digits: digits, to: &text)
      return String(decoding: text, as: UTF8.self)
    }
    #expect(written(0, 2) == "00" && written(7, 1) == "7" && written(-5, 4) == "-0005" && written(12_345, 2) == "12345")
    #expect(written(.min, 1) == "-9223372036854775808" && written(.max, 3) == "9223372036854775807")
  }

  /// The last nanoseconds of a second (a clock can read one) are in that second, as the response's
  /// JSON says, and the last of a day in that day.
  @Test func aMomentJustBeforeASecondIsInThatSecond() {
    let noon = Date(timeIntervalSinceReferenceDate: Date(timeIntervalSince1970: 1_795_316_400).timeIntervalSinceReferenceDate.nextDown)
    #expect(ResponseTable.format(noon) == "2026-11-22 11:59:59")
    let midnight = Date(timeIntervalSinceReferenceDate: Date(timeIntervalSince1970: 1_795_359_600).timeIntervalSinceReferenceDate.nextDown)
    #expect(ResponseTable.format(midnight) == "2026-11-22 23:59:59")
  }
}
