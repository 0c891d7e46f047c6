import Foundation
import PointApp
import Testing

@testable import PointAppWeb

extension StoreKind {
  /// Quotas and users' states on a backend of this kind, and a way to open both again on the same
  /// data where there can be another (a process on the folder, an instance on the database).
  func quotaStores() async throws -> (quotas: Quotas, users: UserStates, another: (() throws -> (Quotas, UserStates))?) {
    switch self {
    case .memory:
      let backend = MemoryBackend()
      return (Quotas(backend), UserStates(backend), nil)
    case .files:
      let folder = scratch("quotas")
      let open = { let backend = try FileBackend(folder); return (Quotas(backend), UserStates(backend)) }
      let (quotas, users) = try open()
      return (quotas, users, open)
    case .cachedPostgres:
      preconditionFailure("a kind of the record layer's only (StoreKind.testedRecords)")
    case .postgres:
      let database = try await TestDatabase.database()
      let another = try TestDatabase.another(database)
      let backend = PostgresBackend(database)
      return (Quotas(backend), UserStates(backend), { (Quotas(PostgresBackend(another)), UserStates(PostgresBackend(another))) })
    }
  }
}

/// What quotas guarantee on every backend. Each test has surveys of its own (the database is
/// shared by the tests).
struct QuotaStoreContractTests {
  func survey() -> SurveyID { SurveyID("quota-\(UUID().uuidString.prefix(8).lowercased())") }

  /// A claim as a request makes it: in its user's update, which saves.
  func claim(
    _ survey: SurveyID, places: Int?, cell: QuotaCells.Cell? = nil, for user: UserID, in stores: (quotas: Quotas, users: UserStates)
  ) async throws -> Bool {
    try await stores.users.update(user) { _ in
      (UserSave(state: Data("{}".utf8)), try await stores.quotas.claim(survey, places: places, cell: cell, for: user))
    }
  }

  /// 女性 and 男性, 5 places each, 8 in all: 100 claimers at once, half of each, through two
  /// backends where there are two. Each cell never over its limit, the survey never over its own,
  /// every place taken once, and a cell's refusal leaves the overall count as it was.
  @Test(arguments: StoreKind.tested)
  func aHundredClaimsAtOnceNeverPassACellsLimitNorTheSurveys(kind: StoreKind) async throws {
    let (quotas, users, another) = try await kind.quotaStores()
    let other = try another?() ?? (quotas, users)
    let survey = survey()
    let cells = [QuotaCells.Cell(values: ["female"], limit: 5), QuotaCells.Cell(values: ["male"], limit: 5)]
    let granted = try await withThrowingTaskGroup(of: String?.self) { group in
      for number in 0..<100 {
        let stores = number.isMultiple(of: 2) ? (quotas, users) : other
        let cell = cells[number / 2 % 2]
        group.addTask { try await claim(survey, places: 8, cell: cell, for: .random(), in: stores) ? cell.name : nil }
      }
      return try await group.reduce(into: [String: Int]()) { counts, name in if let name { counts[name, default: 0] += 1 } }
    }
    #expect(granted.values.reduce(0, +) == 8)
    #expect(granted.values.allSatisfy { $0 <= 5 })
    #expect(try await quotas.taken(survey) == 8)
    #expect(try await quotas.taken(survey, cell: "female") == granted["female"] ?? 0)
    #expect(try await quotas.taken(survey, cell: "male") == granted["male"] ?? 0)
    // A full cell refuses and takes nothing from the survey's count; a cell alone (no overall quota) fills to its limit.
    let lone = self.survey()
    for _ in 0..<5 { #expect(try await claim(lone, places: nil, cell: cells[0], for: .random(), in: (quotas, users))) }
    #expect(try await !claim(lone, places: 10, cell: cells[0], for: .random(), in: (quotas, users)))
    #expect(try await quotas.taken(lone) == 0, "the overall place given back with the refusal")
    #expect(try await quotas.taken(lone, cell: "female") == 5)
  }

  @Test(arguments: StoreKind.tested)
  func aSurveyGivesNoMorePlacesThanItHasAndOneToEachUser(kind: StoreKind) async throws {
    let (quotas, users, _) = try await kind.quotaStores()
    let survey = survey()
    let (a, b, c) = (UserID.random(), UserID.random(), UserID.random())
    #expect(try await claim(survey, places: 2, for: a, in: (quotas, users)))
    #expect(try await claim(survey, places: 2, for: a, in: (quotas, users)), "a holder keeps their place")
    #expect(try await claim(survey, places: 2, for: b, in: (quotas, users)))
    #expect(try await !claim(survey, places: 2, for: c, in: (quotas, users)))
    #expect(try await quotas.taken(survey) == 2)
    #expect(try await quotas.holds(survey, a))
    #expect(try await quotas.holds(survey, b))
    #expect(try await !quotas.holds(survey, c))
    #expect(try await !claim(self.survey(), places: 0, for: a, in: (quotas, users)), "a survey with no places gives none")
  }

  /// A place lasts only with the update it was claimed in: one whose update fails (a crash before
  /// the save, as far as the answer goes) was never taken.
  @Test(arguments: StoreKind.tested)
  func aPlaceLastsOnlyWithTheUpdateItWasClaimedIn(kind: StoreKind) async throws {
    let (quotas, users, another) = try await kind.quotaStores()
    let survey = survey()
    let (failed, saved) = (UserID.random(), UserID.random())
    await #expect(throws: Failure.self) {
      try await users.update(failed) { _ -> (save: UserSave?, result: Void) in
        #expect(try await quotas.claim(survey, places: 1, for: failed))
        throw Failure()
      }
    }
    #expect(try await !quotas.holds(survey, failed))
    #expect(try await claim(survey, places: 1, for: saved, in: (quotas, users)), "the failed update's place is free")
    #expect(try await !claim(survey, places: 1, for: .random(), in: (quotas, users)))
    #expect(try await quotas.taken(survey) == 1)
    if let another {
      let (quotas, _) = try another()
      #expect(try await quotas.taken(survey) == 1, "opened anew, as it was left")
    }
  }

  /// 100 users claim 10 places at once, through two backends on the same data where there are two.
  @Test(arguments: StoreKind.tested)
  func aHundredClaimsAtOnceForTenPlacesGiveTen(kind: StoreKind) async throws {
    let (quotas, users, another) = try await kind.quotaStores()
    let other = try another?() ?? (quotas, users)
    let survey = survey()
    let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
      for number in 0..<100 {
        let stores = number.isMultiple(of: 2) ? (quotas, users) : other
        group.addTask { try await claim(survey, places: 10, for: .random(), in: stores) }
      }
      return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
    }
    #expect(granted == 10)
    #expect(try await quotas.taken(survey) == 10)
    if let another { #expect(try await another().0.taken(survey) == 10, "opened anew, counted") }
  }
}
