import ComposableTesting
import Dependencies
import Foundation
import PointApp

/// A fixed moment: 2026-11-22 12:00 in Tokyo (03:00 UTC).
let noon = Date(timeIntervalSince1970: 1_795_316_400)
/// The last second of 2026-11-22 in Tokyo, and the first of the next day.
let lastSecondOfTheDay = Date(timeIntervalSince1970: 1_795_359_599)
let firstSecondOfNextDay = Date(timeIntervalSince1970: 1_795_359_600)
let today = Day(noon, in: .tokyo)

extension Profile {
  /// Born in 2000: 26 at noon.
  static let hanako = Profile(birthYear: 2000, gender: .female, prefecture: .tokyo, occupation: .companyEmployee)
}

func days(_ count: Double) -> TimeInterval { count * 86_400 }

extension SurveyQuestion {
  static let breakfastFrequency = SurveyQuestion(
    id: QuestionID("frequency"), text: "朝ごはんを食べる頻度は？",
    kind: .singleChoice(choices: [
      Choice(id: ChoiceID("daily"), label: "ほぼ毎日"),
      Choice(id: ChoiceID("rarely"), label: "ほとんどない"),
    ])
  )
  static let breakfastFoods = SurveyQuestion(
    id: QuestionID("foods"), text: "よく食べるものは？（2つまで）",
    kind: .multipleChoice(
      choices: [
        Choice(id: ChoiceID("rice"), label: "ごはん"),
        Choice(id: ChoiceID("bread"), label: "パン"),
        Choice(id: ChoiceID("fruit"), label: "果物"),
      ],
      minPicks: 1, maxPicks: 2
    )
  )
  static let satisfaction = SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)
  static let comment = SurveyQuestion(
    id: QuestionID("comment"), text: "ご意見をどうぞ", kind: .freeText(required: false, maxLength: 10)
  )
}

extension Survey {
  static func fixture(
    id: String = "breakfast",
    title: String = "朝ごはんアンケート",
    category: SurveyCategory = .food,
    questions: [SurveyQuestion] = [.breakfastFrequency, .breakfastFoods, .satisfaction, .comment],
    reward: PointAmount = 40,
    minutes: Int = 2,
    publishedAt: Date = noon - days(10),
    expiresAt: Date? = nil,
    targeting: Targeting? = nil,
    screening: Screening? = nil,
    quality: QualitySettings? = nil,
    quota: Quota? = nil
  ) -> Survey {
    Survey(
      id: SurveyID(id), title: title, description: "\(title)の説明", category: category,
      questions: questions, reward: reward, estimatedMinutes: minutes,
      publishedAt: publishedAt, expiresAt: expiresAt, targeting: targeting, screening: screening,
      quality: quality, quota: quota
    )
  }

  /// Asks first whether the user drinks coffee: those who do not get 3 pt and go no further.
  static let screenedCoffee = Survey.fixture(
    id: "coffee", title: "コーヒーの調査", category: .food, questions: [.satisfaction], reward: 50,
    publishedAt: noon - days(3),
    screening: Screening(
      questions: [SurveyQuestion(id: QuestionID("drinks"), text: "コーヒーを飲みますか？", kind: .singleChoice(choices: [
        .init(id: ChoiceID("daily"), label: "毎日"), .init(id: ChoiceID("sometimes"), label: "ときどき"), .init(id: ChoiceID("never"), label: "飲まない"),
      ]))],
      qualifying: [QuestionID("drinks"): [ChoiceID("daily"), ChoiceID("sometimes")]],
      consolation: 3
    )
  )

  /// For women in their twenties in Tokyo.
  static let twenties = Survey.fixture(
    id: "twenties", title: "20代女性の調査", category: .lifestyle, questions: [.satisfaction], reward: 80,
    publishedAt: noon - days(2), targeting: Targeting(minAge: 20, maxAge: 29, genders: [.female], prefectures: [.tokyo])
  )

  static let breakfast = Survey.fixture()
  /// A single-question survey that pays 60 pt.
  static let sweets = Survey.fixture(
    id: "sweets", title: "スイーツ調査", questions: [.satisfaction], reward: 60, minutes: 3,
    publishedAt: noon - days(1)
  )
  static let travel = Survey.fixture(
    id: "travel", title: "旅行の予定", category: .travel, questions: [.satisfaction], reward: 90, minutes: 2,
    publishedAt: noon - days(30), expiresAt: noon + days(30)
  )
  static let expired = Survey.fixture(
    id: "expired", title: "終わった調査", questions: [.satisfaction], reward: 500,
    publishedAt: noon - days(60), expiresAt: noon - days(1)
  )
}

/// Valid answers to `Survey.breakfast`.
let breakfastAnswers: AnswerDraft = [
  QuestionID("frequency"): ["daily"],
  QuestionID("foods"): ["rice", "fruit"],
  QuestionID("satisfaction"): ["4"],
]

/// Valid answers to any survey made of the satisfaction question only.
let ratingAnswer: AnswerDraft = [QuestionID("satisfaction"): ["5"]]

extension UserProgress {
  /// Progress after answering `surveys` at `date`, one transaction id each from `ids`.
  static func answered(_ surveys: [Survey], at date: Date = noon, ids: inout Int) -> UserProgress {
    var progress = UserProgress()
    for survey in surveys {
      progress.recordAnswer(
        to: survey, with: [], id: TransactionID(UUID(ids)), at: date, on: Day(date, in: .tokyo)
      )
      ids += 1
    }
    return progress
  }
}

extension UserProgress {
  /// Progress that earned what `count` gift exchanges cost at `start`, then made them one every
  /// four days from `start` (a JST month holds at most eight), each fulfilled at once with code
  /// `CODE-{number}` unless it is left `pending`. Hold ids come from `ids`.
  static func exchanged(_ count: Int, from start: Date = noon, leavingPending pending: Set<Int> = [], ids: inout Int) -> UserProgress {
    let gift = ExchangeOption.all[0]
    var progress = UserProgress.answered([.fixture(reward: PointAmount(gift.total.value * count)!)], at: start, ids: &ids)
    for index in 0..<count {
      let date = start + days(Double(4 * index)) + 60
      let request = try! progress.requestExchange(gift, id: TransactionID(UUID(ids)), at: date)
      ids += 1
      if !pending.contains(request.number) {
        _ = progress.fulfilExchange(request.number, with: GiftCode("CODE-\(request.number)"), at: date)
      }
    }
    return progress
  }
}

extension OperatorFeature.State {
  /// An operator of `role` signed in with the second factor given at noon.
  static func console(_ email: String = "ops@example.jp", role: OperatorRole = .administrator) -> Self {
    Self(signedIn: email, role: role, secondFactor: .given(at: noon))
  }
}

/// The whole app from `state` at `now` (Tokyo's calendar, incrementing ids), its accounts as
/// `accounts` makes them: the store of every account feature's tests.
func appStore(
  _ state: AppFeature.State = AppFeature.State(), now: Date = noon, _ accounts: (inout AccountClient) -> Void = { _ in }
) -> TestStoreOf<AppFeature> {
  TestStore(initialState: state) {
    AppFeature()
  } withDependencies: {
    accounts(&$0.accounts)
    $0.date.now = now
    $0.uuid = .incrementing
    $0.calendar = .tokyo
  }
}
