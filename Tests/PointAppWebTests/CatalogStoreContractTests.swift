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

extension CatalogStoreContractTests {
  /// Publications through two instances at once: each is a version of its own, numbered one after
  /// another; every version replaced is kept as it was published; a new survey is version 1.
  @Test(arguments: Kind.tested)
  func eachPublicationIsTheNextVersionAndEveryReplacedOneIsKept(kind: Kind) async throws {
    let storage = try await Self.storage(kind)
    let here = CatalogStore(storage)
    let there = CatalogStore(storage)
    try await here.start(seed: Catalog.shipped(seededAt:), now: noon)
    try await there.start(seed: Catalog.shipped(seededAt:), now: noon)
    let original = try #require(here.surveys.first)
    let versions = try await withThrowingTaskGroup(of: Int.self) { group in
      for number in 0..<6 {
        group.addTask {
          try await (number.isMultiple(of: 2) ? here : there).publish(original.with(title: "改訂 \(number)")).published.version
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(versions.sorted() == Array(2...7))
    try await there.refresh()
    let current = try #require(there.surveys.first { $0.id == original.id })
    #expect(current.version == 7)
    #expect(try await there.version(1, of: original.id) == original)
    for version in 2..<7 {
      let kept = try #require(try await there.version(version, of: original.id))
      #expect(kept.version == version && kept.title.hasPrefix("改訂 "))
    }
    #expect(try await there.version(7, of: original.id) == nil, "the current version is the catalog's")

    let new = Survey(
      id: SurveyID("s-0000beef"), title: "新しい調査", description: "d", category: .food, questions: original.questions,
      reward: 10, estimatedMinutes: 1, publishedAt: noon, expiresAt: nil
    )
    let (published, replaced) = try await here.publish(new)
    #expect(published.version == 1 && replaced == nil)
    #expect(there.surveys.count == Catalog.shipped(seededAt: noon).count, "not read again yet")
    try await there.refresh()
    #expect(there.surveys.last == published)
  }

  /// Drafts are kept beside the catalog, one per survey, never served to users: saved (the first
  /// save says so), listed, read, discarded.
  @Test(arguments: Kind.tested)
  func draftsAreKeptListedAndDiscarded(kind: Kind) async throws {
    let storage = try await Self.storage(kind)
    let store = CatalogStore(storage)
    try await store.start(seed: Catalog.shipped(seededAt:), now: noon)
    var form = SurveyForm()
    form.title = "下書き"
    let drafts = (0..<3).map { EditorDraft(id: SurveyID("s-\($0)"), form: form, savedAt: noon) }
    for draft in drafts { #expect(try await store.save(draft)) }
    var changed = drafts[1]
    changed.form.title = "下書き（2回目）"
    #expect(try await store.save(changed) == false, "not the first save")
    #expect(try await store.allDrafts() == [drafts[0], changed, drafts[2]])
    #expect(try await store.draft(SurveyID("s-1")) == changed)
    #expect(try await store.discardDraft(SurveyID("s-1")) == changed)
    #expect(try await store.discardDraft(SurveyID("s-1")) == nil)
    #expect(try await store.allDrafts() == [drafts[0], drafts[2]])
    #expect(!store.surveys.contains { $0.id.rawValue.hasPrefix("s-") }, "no draft is in the catalog")
    #expect(try await store.refresh() == false, "drafts do not move the catalog's version")
  }
}

extension Survey {
  /// The same survey with another title or reward.
  func with(title: String? = nil, reward: PointAmount? = nil) -> Survey {
    Survey(
      id: id, title: title ?? self.title, description: description, category: category, questions: questions,
      reward: reward ?? self.reward, estimatedMinutes: estimatedMinutes, publishedAt: publishedAt, expiresAt: expiresAt,
      targeting: targeting, screening: screening, quality: quality, quota: quota, version: version
    )
  }
}
