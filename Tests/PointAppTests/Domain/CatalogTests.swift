import Foundation
import PointApp
import Testing

/// The catalog shipped in the package is what a new server serves.
struct CatalogTests {
  let surveys = Catalog.shipped(seededAt: noon)

  /// Dated from the moment it is seeded: a new install on any date (two years on, a leap day) has
  /// the same open catalog, with the same places and deadlines still ahead.
  @Test(arguments: [0.0, 37.0, 400.0, 464.0, 730.0] as [Double])
  func aNewInstallOnAnyDateOpensTheSameCatalog(daysLater: Double) {
    let moment = noon.addingTimeInterval(daysLater * 86_400)
    let later = Catalog.shipped(seededAt: moment)
    let open = { (surveys: [Survey], at: Date) in Set(surveys.filter { $0.isAvailable(at: at) }.map(\.id)) }
    #expect(open(later, moment) == open(surveys, noon))
    #expect(open(later, moment).count == 32)
    for (then, now) in zip(surveys, later) {
      #expect(now.expiresAt.map { $0.timeIntervalSince(moment) } == then.expiresAt.map { $0.timeIntervalSince(noon) })
    }
  }

  @Test func shipsEnoughSurveysAcrossCategories() {
    #expect(surveys.count >= 24)
    #expect(Set(surveys.map(\.category)).count >= 5)
    #expect(Set(surveys.map(\.id)).count == surveys.count)
  }

  @Test func usesEveryKindOfQuestion() {
    let kinds = Set(surveys.flatMap(\.questions).map { question -> String in
      switch question.kind {
      case .singleChoice: "single"
      case .multipleChoice: "multiple"
      case .freeText: "text"
      case .rating: "rating"
      case .grid: "grid"
      case .number: "number"
      case .longText: "long text"
      case .attentionCheck: "attention check"
      }
    })
    #expect(kinds == ["single", "multiple", "text", "rating", "grid", "number", "long text", "attention check"])
    #expect(surveys.filter { $0.questions.contains { if case .grid = $0.kind { true } else { false } } }.count >= 4)
  }

  /// Surveys for some people only: by age, by gender, by prefecture; each reachable by someone.
  @Test func someSurveysTargetAgesGendersAndPrefectures() {
    let targeted = surveys.compactMap(\.targeting)
    #expect(targeted.contains { $0.minAge != nil || $0.maxAge != nil })
    #expect(targeted.contains { $0.genders != nil })
    #expect(targeted.contains { $0.prefectures != nil })
    for targeting in targeted {
      #expect(Profile.ages.contains(targeting.minAge ?? Profile.ages.lowerBound))
      #expect(Profile.ages.contains(targeting.maxAge ?? Profile.ages.upperBound))
      #expect((targeting.minAge ?? 0) <= (targeting.maxAge ?? Int.max))
      #expect(targeting.genders?.isEmpty != true && targeting.prefectures?.isEmpty != true)
    }
    let tokyoWoman = Profile(birthYear: 1995, gender: .female, prefecture: .tokyo, occupation: .companyEmployee)
    let osakaMan = Profile(birthYear: 1975, gender: .male, prefecture: .osaka, occupation: .selfEmployed)
    let open = surveys.filter { $0.isAvailable(at: noon) && $0.targeting != nil }
    #expect(open.contains { $0.eligibility(of: tokyoWoman, at: noon) == .eligible && $0.eligibility(of: osakaMan, at: noon) == .outsideTarget })
    #expect(open.contains { $0.eligibility(of: osakaMan, at: noon) == .eligible && $0.eligibility(of: tokyoWoman, at: noon) == .outsideTarget })
    // Most of the list stays open to a guest.
    #expect(surveys.filter { $0.isAvailable(at: noon) && $0.targeting == nil }.count >= 20)
  }

  /// Six or more surveys screen first; each screening can qualify and can screen out, asks choice
  /// questions with ids of their own, and thanks those screened out with a few points.
  @Test func someSurveysScreenFirst() {
    let screened = surveys.filter { $0.screening != nil }
    #expect(screened.count >= 6)
    for survey in screened {
      let screening = survey.screening!
      #expect(Set(screening.questions.map(\.id)).isDisjoint(with: survey.questions.map(\.id)), "\(survey.id)")
      #expect((1...10).contains(screening.consolation.value), "\(survey.id)")
      for question in screening.questions {
        let choices: [SurveyQuestion.Choice]
        switch question.kind {
        case let .singleChoice(options), let .multipleChoice(options, _, _): choices = options
        default:
          Issue.record("\(survey.id) screens with a question that is not a choice")
          continue
        }
        // Some picks qualify, some do not.
        #expect(screening.qualifying[question.id].map { !$0.isEmpty && Set($0).isStrictSubset(of: choices.map(\.id)) } ?? false, "\(survey.id)")
      }
    }
  }

  /// Some surveys pay for careful answers only: a minimum time, grids of five rows, attention checks.
  @Test func someSurveysAskForCarefulAnswers() {
    let careful = surveys.filter { $0.quality != nil }
    #expect(careful.count >= 4)
    #expect(careful.allSatisfy { (1...10).contains($0.quality!.minSecondsPerQuestion) })
    #expect(careful.contains { $0.questions.contains { if case let .grid(rows, _) = $0.kind { rows.count >= AnswerQuality.straightLiningRows } else { false } } })
    #expect(careful.contains { $0.questions.contains { if case .attentionCheck = $0.kind { true } else { false } } })
  }

  /// Quotas from 50 to 5,000 completes: some with places to spare, some nearly full, one full;
  /// a screened survey among them. A survey past its deadline is still listed, closed.
  @Test func someSurveysHaveQuotasSomeNearlyFullOrClosed() {
    let quotas = surveys.compactMap(\.quota)
    #expect(quotas.count >= 6)
    #expect(quotas.allSatisfy { (50...5_000).contains($0.target) && (0...$0.target).contains($0.collected) })
    #expect(quotas.contains { $0.target == 50 } && quotas.contains { $0.target == 5_000 })
    #expect(surveys.contains { $0.closure(at: noon) == .full })
    #expect(surveys.contains { $0.isNearlyFull && $0.closure(at: noon) == nil && $0.screening == nil && $0.targeting == nil })
    #expect(surveys.contains { $0.quota != nil && $0.screening != nil })
    #expect(surveys.contains { survey in
      survey.closure(at: noon) == .deadlinePassed && survey.expiresAt.map { noon.timeIntervalSince($0) < SurveyList.closedShownFor } == true
    })
  }

  @Test func someExpireAndMostAreOpenToday() {
    #expect(surveys.contains { $0.expiresAt != nil && $0.isAvailable(at: noon) })
    #expect(surveys.contains { !$0.isAvailable(at: noon) })
    #expect(surveys.filter { $0.isAvailable(at: noon) }.count >= 20)
  }

  @Test func everySurveyIsAnswerable() {
    for survey in surveys {
      #expect(!survey.questions.isEmpty, "\(survey.id)")
      #expect(survey.reward > .zero && survey.estimatedMinutes > 0, "\(survey.id)")
      for question in survey.questions {
        switch question.kind {
        case let .singleChoice(choices):
          #expect(choices.count >= 2, "\(survey.id)/\(question.id)")
        case let .multipleChoice(choices, minPicks, maxPicks):
          #expect(0 <= minPicks && minPicks <= maxPicks && maxPicks <= choices.count, "\(survey.id)/\(question.id)")
        case let .freeText(_, maxLength):
          #expect(maxLength > 0, "\(survey.id)/\(question.id)")
        case .rating:
          break
        case let .grid(rows, scale):
          #expect(rows.count >= 2 && (4...7).contains(scale.count), "\(survey.id)/\(question.id)")
          #expect(Set(rows.map(\.id)).count == rows.count && rows.allSatisfy { !$0.id.contains(":") && !$0.id.contains("]") }, "\(survey.id)/\(question.id)")
        case let .number(min, max, _):
          #expect(min < max, "\(survey.id)/\(question.id)")
        case let .longText(minLength, maxLength):
          #expect(0 < minLength && minLength < maxLength, "\(survey.id)/\(question.id)")
        case let .attentionCheck(choices, expected):
          #expect(choices.count >= 3 && choices.contains { $0.id == expected }, "\(survey.id)/\(question.id)")
        }
      }
    }
  }
}
