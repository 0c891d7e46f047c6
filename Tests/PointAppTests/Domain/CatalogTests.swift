import Foundation
import PointApp
import Testing

/// The catalog shipped in the package is what a new server serves.
struct CatalogTests {
  let surveys = Catalog.shipped

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
      }
    })
    #expect(kinds == ["single", "multiple", "text", "rating"])
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
        }
      }
    }
  }
}
