import Foundation
import PointApp
import Testing

struct ProfileTests {
  static let hanako = Profile(birthYear: 1996, gender: .female, prefecture: .tokyo, occupation: .companyEmployee)
  /// 2026-12-31 23:59:59 and 2027-01-01 00:00:00 in Tokyo.
  static let lastSecondOf2026 = Date(timeIntervalSince1970: 1_798_729_199)
  static let newYear2027 = Date(timeIntervalSince1970: 1_798_729_200)

  @Test func thereAreFortySevenPrefecturesInJISOrder() {
    #expect(Prefecture.allCases.count == 47)
    #expect(Set(Prefecture.allCases.map(\.title)).count == 47)
    #expect(Prefecture.hokkaido.code == 1 && Prefecture.tokyo.code == 13 && Prefecture.okinawa.code == 47)
    #expect(Prefecture.tokyo.title == "東京都" && Prefecture.osaka.title == "大阪府" && Prefecture.kagoshima.title == "鹿児島県")
    #expect(Prefecture.Region.allCases.flatMap(\.prefectures) == Prefecture.allCases)
  }

  @Test func theAgeMovesOnAtMidnightOnNewYearsDayInTokyo() {
    #expect(Self.hanako.age(at: noon) == 30)
    #expect(Self.hanako.age(at: Self.lastSecondOf2026) == 30)
    #expect(Self.hanako.age(at: Self.newYear2027) == 31)
  }

  @Test func aCompleteFormIsAProfileAndFullWidthDigitsAreAYear() {
    let draft = ProfileDraft(birthYear: "１９９６", gender: "female", prefecture: "tokyo", occupation: "companyEmployee")
    #expect(Profile.validate(draft, at: noon) == .success(Self.hanako))
    #expect(Profile.validate(ProfileDraft(Self.hanako), at: noon) == .success(Self.hanako))
  }

  /// In 2026, ages 15 to 100: birth years 1926 to 2011.
  @Test func birthYearsAtTheAgeLimitsAreAcceptedAndOneBeyondRefused() {
    func year(_ text: String) -> ProfileError? {
      let draft = ProfileDraft(birthYear: text, gender: "male", prefecture: "osaka", occupation: "student")
      guard case let .failure(errors) = Profile.validate(draft, at: noon) else { return nil }
      return errors.byField[.birthYear]
    }
    #expect(year("1926") == nil)
    #expect(year("2011") == nil)
    #expect(year("1925") == .yearOutOfRange(1926...2011))
    #expect(year("2012") == .yearOutOfRange(1926...2011))
    #expect(year("96") == .notAYear)
    #expect(year("19x6") == .notAYear)
    #expect(year("") == .required)
  }

  @Test func eachFieldGetsItsOwnError() {
    let result = Profile.validate(ProfileDraft(birthYear: "", gender: "robot", prefecture: "", occupation: "astronaut"), at: noon)
    #expect(result == .failure(ProfileErrors(byField: [
      .birthYear: .required, .gender: .unknownOption, .prefecture: .notChosen, .occupation: .unknownOption,
    ])))
  }

  @Test func aForgedFormCannotGrowTheKeptDraft() {
    let long = String(repeating: "あ", count: 10_000)
    let draft = ProfileDraft(birthYear: long, gender: long, prefecture: long, occupation: long)
    #expect(draft.birthYear.count == 32 && draft.occupation.count == 32)
  }
}

struct TargetingTests {
  static let twenties = Targeting(minAge: 20, maxAge: 29, genders: [.female], prefectures: [.tokyo, .kanagawa])

  func profile(born year: Int, _ gender: Gender = .female, in prefecture: Prefecture = .tokyo) -> Profile {
    Profile(birthYear: year, gender: gender, prefecture: prefecture, occupation: .student)
  }

  /// At noon in 2026: born 2007 is 19, 2006 is 20, 1997 is 29, 1996 is 30.
  @Test func theYoungestAndOldestAgesOfTheRangeAreInAndOneYearOutsideIsNot() {
    #expect(Self.twenties.eligibility(of: profile(born: 2007), at: noon) == .outsideTarget)
    #expect(Self.twenties.eligibility(of: profile(born: 2006), at: noon) == .eligible)
    #expect(Self.twenties.eligibility(of: profile(born: 1997), at: noon) == .eligible)
    #expect(Self.twenties.eligibility(of: profile(born: 1996), at: noon) == .outsideTarget)
  }

  @Test func genderAndPrefectureMustBeAmongTheTargetedOnes() {
    #expect(Self.twenties.eligibility(of: profile(born: 2000, .male), at: noon) == .outsideTarget)
    #expect(Self.twenties.eligibility(of: profile(born: 2000, in: .kanagawa), at: noon) == .eligible)
    #expect(Self.twenties.eligibility(of: profile(born: 2000, in: .osaka), at: noon) == .outsideTarget)
  }

  @Test func aTargetedSurveyNeedsAProfileAnUntargetedOneAnyone() {
    #expect(Self.twenties.eligibility(of: nil, at: noon) == .needsProfile)
    #expect(Targeting().eligibility(of: profile(born: 1930, .other, in: .okinawa), at: noon) == .eligible)
  }
}

struct ScreeningTests {
  let screening = Survey.screenedCoffee.screening!

  @Test func anyQualifyingPickQualifiesAndTheOthersScreenOut() {
    let answer = { (choice: String) in [SurveyAnswer(questionID: QuestionID("drinks"), value: .choice(ChoiceID(choice)))] }
    #expect(screening.verdict(on: [QuestionID("drinks"): ["daily"]]) == .success(.qualified(answer("daily"))))
    #expect(screening.verdict(on: [QuestionID("drinks"): ["sometimes"]]) == .success(.qualified(answer("sometimes"))))
    #expect(screening.verdict(on: [QuestionID("drinks"): ["never"]]) == .success(.screenedOut(answer("never"))))
    #expect(screening.verdict(on: [QuestionID("drinks"): ["tea"]]) == .failure(AnswerErrors(byQuestion: [QuestionID("drinks"): .unknownChoice])))
  }

  @Test func aScreenOutIsPaidOnceAndIsNoCompletion() {
    var progress = UserProgress()
    let first = progress.screenOut(of: .screenedCoffee, consolation: 3, with: [], id: TransactionID(UUID(1)), at: noon)
    let second = progress.screenOut(of: .screenedCoffee, consolation: 3, with: [], id: TransactionID(UUID(2)), at: noon)
    let answered = progress.recordAnswer(to: .screenedCoffee, with: [], id: TransactionID(UUID(3)), at: noon, on: today)
    #expect(first && !second && !answered)
    #expect(progress.ledger.recent.map(\.reason) == [.screeningConsolation(Survey.screenedCoffee.id)])
    #expect(progress.answeredCount == 1 && progress.completedCount == 0)
    #expect(progress.achievements.isEmpty, "a screen-out is no first answer")
    #expect(progress.missions.surveysAnswered == 0, "nor does it count for today's missions")
  }
}

struct AnswerQualityTests {
  static let scale: [SurveyQuestion.Choice] = ["c1", "c2", "c3"].map { .init(id: ChoiceID($0), label: $0) }
  static func grid(rows: Int) -> SurveyQuestion {
    SurveyQuestion(id: QuestionID("g"), text: "g", kind: .grid(rows: (1...rows).map { .init(id: "r\($0)", label: "行\($0)") }, scale: scale))
  }
  static let attention = SurveyQuestion(id: QuestionID("a"), text: "「c2」を選んでください", kind: .attentionCheck(choices: scale, expected: ChoiceID("c2")))
  /// Four questions, at least 5 s each: 20 s.
  static let careful = Survey.fixture(
    id: "careful", questions: [grid(rows: 5), attention, .satisfaction, .comment], quality: QualitySettings(minSecondsPerQuestion: 5)
  )

  func cells(_ rows: Int, _ choices: [String]) -> SurveyAnswer {
    SurveyAnswer(questionID: QuestionID("g"), value: .grid((1...rows).map { GridCell(row: "r\($0)", choice: ChoiceID(choices[($0 - 1) % choices.count])) }))
  }
  let attentive = SurveyAnswer(questionID: QuestionID("a"), value: .choice(ChoiceID("c2")))

  @Test func speedingIsOneSecondUnderTheMinimumNotAtIt() {
    let answers = [cells(5, ["c1", "c2"]), attentive]
    #expect(AnswerQuality.failedChecks(answers, to: Self.careful, openedAt: noon, submittedAt: noon + 19) == [.speeding])
    #expect(AnswerQuality.failedChecks(answers, to: Self.careful, openedAt: noon, submittedAt: noon + 20) == [])
    #expect(AnswerQuality.failedChecks(answers, to: Self.careful, openedAt: noon, submittedAt: noon + 21) == [])
    // A survey with no minimum has none.
    #expect(AnswerQuality.failedChecks([], to: .sweets, openedAt: noon, submittedAt: noon) == [])
  }

  @Test func fiveRowsAllAlikeAreStraightLiningFourAreNot() {
    let five = Survey.fixture(id: "five", questions: [Self.grid(rows: 5)])
    let four = Survey.fixture(id: "four", questions: [Self.grid(rows: 4)])
    #expect(AnswerQuality.failedChecks([cells(5, ["c1"])], to: five, openedAt: noon, submittedAt: noon) == [.straightLining])
    #expect(AnswerQuality.failedChecks([cells(5, ["c1", "c1", "c1", "c1", "c2"])], to: five, openedAt: noon, submittedAt: noon) == [])
    #expect(AnswerQuality.failedChecks([cells(4, ["c1"])], to: four, openedAt: noon, submittedAt: noon) == [])
  }

  @Test func anAttentionCheckAnsweredOtherwiseThanInstructedFails() {
    let survey = Survey.fixture(id: "attention", questions: [Self.attention])
    let other = SurveyAnswer(questionID: QuestionID("a"), value: .choice(ChoiceID("c1")))
    #expect(AnswerQuality.failedChecks([other], to: survey, openedAt: noon, submittedAt: noon) == [.attention])
    #expect(AnswerQuality.failedChecks([attentive], to: survey, openedAt: noon, submittedAt: noon) == [])
  }

  @Test func aFirstTripAsksForAReviewAfterItTwoChecksAreInvalidOneIsPaid() {
    #expect(AnswerQuality.verdict([], reviewRequested: false) == .accept)
    #expect(AnswerQuality.verdict([.speeding], reviewRequested: false) == .askToReview)
    #expect(AnswerQuality.verdict(QualityCheck.allCases, reviewRequested: false) == .askToReview)
    #expect(AnswerQuality.verdict([.speeding], reviewRequested: true) == .accept)
    #expect(AnswerQuality.verdict([.speeding, .attention], reviewRequested: true) == .reject)
    #expect(AnswerQuality.verdict([], reviewRequested: true) == .accept)
  }
}
