import Foundation
import PointApp
import PointAppWeb
import Testing

/// What the catalog in the store guarantees, in memory, in files and in PostgreSQL alike.
struct CatalogStoreContractTests {
  typealias Kind = StoreKind

  /// Each case its own catalog: on PostgreSQL a database of its own (the `catalog` table holds one).
  static func storage(_ kind: Kind) async throws -> any RecordStorage {
    guard kind == .postgres else { return try await kind.records() }
    return PostgresRecordStorage(try await TestDatabase.make(), table: "catalog")
  }

  /// Instances starting together, each at its own moment: one seeds, every one serves that catalog.
  @Test(arguments: Kind.tested)
  func theShippedCatalogIsSeededOnceDatedFromThatMoment(kind: Kind) async throws {
    let storage = try await Self.storage(kind)
    let stores = (0..<8).map { _ in CatalogStore(storage) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (number, store) in stores.enumerated() {
        group.addTask { try await store.start(seed: Catalog.shipped(seededAt:), now: noon + Double(number) * 86_400) }
      }
      try await group.waitForAll()
    }
    let served = stores[0].surveys
    #expect(served.count == Catalog.shipped(seededAt: noon).count)
    for store in stores { #expect(store.surveys == served) }
    let seededOn = stores.indices.filter { served == Catalog.shipped(seededAt: noon + Double($0) * 86_400) }
    #expect(seededOn.count == 1, "dated from the one moment it was seeded")

    // A restart a year later serves the same catalog: it is never seeded again.
    let later = CatalogStore(storage)
    try await later.start(seed: Catalog.shipped(seededAt:), now: noon + 365 * 86_400)
    #expect(later.surveys == served)
  }

  /// A change made through one instance is served there at once, and by another once it reads
  /// again; changes made at once through both all land.
  @Test(arguments: Kind.tested)
  func aChangeReachesEveryInstanceAndNoneIsLost(kind: Kind) async throws {
    let storage = try await Self.storage(kind)
    let here = CatalogStore(storage)
    let there = CatalogStore(storage)
    try await here.start(seed: Catalog.shipped(seededAt:), now: noon)
    try await there.start(seed: Catalog.shipped(seededAt:), now: noon)
    #expect(try await there.refresh() == false, "nothing changed")
    try await here.modify { $0[0] = $0[0].with(title: "朝ごはん（改訂）") }
    #expect(try await here.client.fetch(SurveyID("food-001"))?.title == "朝ごはん（改訂）")
    #expect(try await there.refresh())
    #expect(try await there.client.fetch(SurveyID("food-001"))?.title == "朝ごはん（改訂）")

    try await withThrowingTaskGroup(of: Void.self) { group in
      for number in 0..<10 {
        group.addTask { try await (number.isMultiple(of: 2) ? here : there).modify { $0[number] = $0[number].with(reward: PointAmount(1_000 + number)!) } }
      }
      try await group.waitForAll()
    }
    try await here.refresh()
    #expect(here.surveys.prefix(10).map(\.reward.value) == Array(1_000..<1_010))
  }
}

extension Survey {
  /// The same survey with another title or reward.
  func with(title: String? = nil, reward: PointAmount? = nil) -> Survey {
    Survey(
      id: id, title: title ?? self.title, description: description, category: category, questions: questions,
      reward: reward ?? self.reward, estimatedMinutes: estimatedMinutes, publishedAt: publishedAt, expiresAt: expiresAt,
      targeting: targeting, screening: screening, quality: quality, quota: quota
    )
  }
}
