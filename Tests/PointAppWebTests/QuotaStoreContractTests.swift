import Foundation
import PointApp
import Testing

@testable import PointAppWeb

extension StoreKind {
  /// A quota store of this kind with the user store it settles from, and a second quota store on
  /// the same data where there can be one (another process on the folder, another instance on the
  /// database): a store opened anew sees the places as they were left.
  func quotaStores() async throws -> (quotas: any QuotaStore, users: any UserStateStore, another: (() throws -> any QuotaStore)?) {
    switch self {
    case .memory:
      return (InMemoryQuotaStore(), InMemoryUserStateStore(), nil)
    case .files, .groupedFiles, .journal:
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pointapp-quotas-\(UUID().uuidString)")
      let users = try JSONFileUserStateStore(directory: folder.appendingPathComponent("users"))
      let open = { try JSONFileQuotaStore(directory: folder.appendingPathComponent("quotas")) as any QuotaStore }
      return (try open(), users, open)
    case .cachedPostgres:
      preconditionFailure("a kind of the record layer's only (StoreKind.testedRecords)")
    case .postgres:
      let database = try await TestDatabase.database()
      let another = try TestDatabase.another(database)
      return (PostgresQuotaStore(database), PostgresUserStateStore(database), { PostgresQuotaStore(another) })
    }
  }
}

/// What every quota store guarantees: the file store, PostgreSQL and the in-memory one alike. Each
/// test has surveys of its own (the database is shared by the tests).
struct QuotaStoreContractTests {
  func survey() -> SurveyID { SurveyID("quota-\(UUID().uuidString.prefix(8).lowercased())") }

  @Test(arguments: StoreKind.tested)
  func aSurveyGivesNoMorePlacesThanItHasAndOneToEachUser(kind: StoreKind) async throws {
    let (quotas, _, _) = try await kind.quotaStores()
    let survey = survey()
    let (a, b, c) = (UserID.random(), UserID.random(), UserID.random())
    #expect(try await quotas.claim(survey, places: 2, for: a))
    #expect(try await quotas.claim(survey, places: 2, for: a), "a holder keeps their place")
    #expect(try await quotas.claim(survey, places: 2, for: b))
    #expect(try await !quotas.claim(survey, places: 2, for: c))
    #expect(try await quotas.taken()[survey] == 2)
    #expect(try await !quotas.claim(self.survey(), places: 0, for: a), "a survey with no places gives none")
  }

  @Test(arguments: StoreKind.tested)
  func aPlaceGivenBackIsFreeForSomeoneElseAKeptOneIsNot(kind: StoreKind) async throws {
    let (quotas, _, _) = try await kind.quotaStores()
    let survey = survey()
    let (a, b, c) = (UserID.random(), UserID.random(), UserID.random())
    #expect(try await quotas.claim(survey, places: 1, for: a))
    #expect(try await quotas.unsettled().contains(QuotaPlace(survey, a)) == !quotas.placesCommitWithUpdate)
    try await quotas.settle(QuotaPlace(survey, a), keep: false)
    #expect(try await quotas.taken()[survey, default: 0] == 0)
    #expect(try await quotas.claim(survey, places: 1, for: b))
    try await quotas.settle(QuotaPlace(survey, b), keep: true)
    #expect(try await !quotas.unsettled().contains(QuotaPlace(survey, b)))
    #expect(try await !quotas.claim(survey, places: 1, for: c))
    #expect(try await quotas.taken()[survey] == 1)
  }

  /// 100 users claim 10 places at once, through two stores on the same data where there are two.
  @Test(arguments: StoreKind.tested)
  func aHundredClaimsAtOnceForTenPlacesGiveTen(kind: StoreKind) async throws {
    let (quotas, _, another) = try await kind.quotaStores()
    let other = try another?() ?? quotas
    let survey = survey()
    let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
      for number in 0..<100 {
        let store = number.isMultiple(of: 2) ? quotas : other
        group.addTask { try await store.claim(survey, places: 10, for: .random()) }
      }
      return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
    }
    #expect(granted == 10)
    #expect(try await quotas.taken()[survey] == 10)
    if let another { #expect(try await another().taken()[survey] == 10, "a store opened anew counts them") }
  }

  /// A place claimed during an update that fails (a crash before the save, as far as the answer
  /// goes) is given back once settled; one whose answer was saved is kept. Settling at start-up
  /// does the same for places a crash left open.
  @Test(arguments: StoreKind.tested)
  func aPlaceLastsOnlyWithTheAnswerItWasClaimedFor(kind: StoreKind) async throws {
    let (quotas, users, _) = try await kind.quotaStores()
    let survey = Survey(
      id: self.survey(), title: "t", description: "d", category: .food,
      questions: [SurveyQuestion(id: QuestionID("q"), text: "?", kind: .rating)],
      reward: 10, estimatedMinutes: 1, publishedAt: noon - 60, expiresAt: nil, quota: Quota(target: 2)
    )
    let (failed, saved) = (UserID.random(), UserID.random())
    await #expect(throws: Failure.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        #expect(try await quotas.claim(survey.id, places: 2, for: failed))
        throw Failure()
      }
    }
    try await users.update(saved) { _ in
      #expect(try await quotas.claim(survey.id, places: 2, for: saved))
      var state = AppFeature.State()
      state.progress.recordAnswer(
        to: survey, with: [SurveyAnswer(questionID: QuestionID("q"), value: .rating(3))], id: TransactionID(UUID()), at: noon,
        on: Day(noon, in: .tokyo)
      )
      return (try UserFiles.save(state).save, ())
    }
    // As after a crash: neither was settled by its request.
    #expect(try await quotas.settleOpenPlaces(from: users) == (quotas.placesCommitWithUpdate ? 0 : 2))
    #expect(try await quotas.taken()[survey.id] == 1)
    #expect(try await quotas.unsettled().isEmpty)
    #expect(try await quotas.claim(survey.id, places: 2, for: .random()), "the failed update's place is free again")
    #expect(try await !quotas.claim(survey.id, places: 2, for: .random()))
  }
}
