import Foundation
import PointApp
import Synchronization

/// The survey catalog as the store keeps it: one record (`catalog/surveys.json`, the `catalog`
/// table), so that a change is whole or not at all, and its version tells every instance whether
/// it changed.
public struct SavedCatalog: Codable, Equatable, Sendable {
  /// When the shipped catalog was seeded: its dates count from this moment's day.
  public var seededAt: Date
  public var surveys: [Survey]
}

/// The catalog in the store, served from memory. Seeded once, on the first start of a data folder
/// or database, from the shipped catalog dated from that moment; read again only when its version
/// moved (`refresh`, a `stat` on files, one short statement on PostgreSQL), by each instance every
/// second: a published change reaches every instance within seconds, and a request reads no
/// catalog.
public final class CatalogStore: Sendable {
  enum Name: String, RecordKey {
    case surveys
    var recordName: String { rawValue }
    init?(recordName: String) { self.init(rawValue: recordName) }
  }

  private struct Loaded: Sendable {
    let version: Int64
    let surveys: [Survey]
    let byID: [SurveyID: Survey]
  }

  /// A survey being edited: `draft-<id>`; a version of a survey as it was published, kept once
  /// it is replaced: `<id>@<version>`.
  static func draftName(_ id: SurveyID) -> RecordName { RecordName("draft-", id.rawValue) }
  static func versionName(_ id: SurveyID, _ version: Int) -> RecordName { RecordName(id.rawValue, "@\(version)") }

  private let records: Records<Name, SavedCatalog>
  private let drafts: Records<RecordName, EditorDraft>
  private let versions: Records<RecordName, Survey>
  private let loaded = Mutex<Loaded?>(nil)

  public init(_ storage: any RecordStorage) {
    records = Records(storage)
    drafts = Records(storage)
    versions = Records(storage)
  }

  /// Seeds the catalog unless the store has one (of instances starting together, one seeds and
  /// the others read it), then loads it.
  public func start(seed: (Date) -> [Survey], now: Date) async throws {
    if try await records.read(.surveys) == nil {
      _ = try await records.create(SavedCatalog(seededAt: now, surveys: seed(now)), as: .surveys)
    }
    try await refresh()
  }

  /// Loads the catalog again if its version moved; whether it did.
  @discardableResult
  public func refresh() async throws -> Bool {
    guard let read = try await records.read(.surveys) else { throw CatalogMissing() }
    return loaded.withLock { loaded in
      guard loaded?.version != read.version else { return false }
      let surveys = read.record.surveys
      loaded = Loaded(version: read.version, surveys: surveys, byID: Dictionary(surveys.map { ($0.id, $0) }) { first, _ in first })
      return true
    }
  }

  /// Changes the catalog over its version as read (again from a fresh read when another change
  /// came between), then serves the change here at once.
  @discardableResult
  public func modify<Result: Sendable>(_ change: (inout [Survey]) throws -> Result) async throws -> Result {
    let result = try await records.modify(.surveys) { saved in
      guard var saved else { throw CatalogMissing() }
      let result = try change(&saved.surveys)
      return (saved, result)
    }
    try await refresh()
    return result
  }

  /// Publishes `survey` as the next version of the survey of its id (the first when there is
  /// none): the version it replaces is kept first (`<id>@<version>`, as published, never changed),
  /// then the catalog changes in one write. The published survey, and the one it replaced.
  public func publish(_ survey: Survey) async throws -> (published: Survey, replaced: Survey?) {
    while true {
      try await refresh()
      let current = loaded.withLock { $0?.byID[survey.id] }
      if let current { _ = try await versions.create(current.numbered(current.version), as: Self.versionName(survey.id, current.version)) }
      let next = survey.numbered((current?.version ?? 0) + 1)
      let landed = try await modify { surveys -> Bool in
        let index = surveys.firstIndex { $0.id == survey.id }
        // Another publication came between: keep its version too, then number after it.
        guard index.map({ surveys[$0].version }) == current?.version else { return false }
        if let index { surveys[index] = next } else { surveys.append(next) }
        return true
      }
      if landed { return (next, current) }
    }
  }

  /// Every draft, in the order of their ids.
  public func allDrafts() async throws -> [EditorDraft] {
    try await drafts.all(prefixed: "draft-")
  }

  public func draft(_ id: SurveyID) async throws -> EditorDraft? {
    try await drafts.read(Self.draftName(id))?.record
  }

  /// Keeps `draft` over the one of its survey; whether it is the first.
  public func save(_ draft: EditorDraft) async throws -> Bool {
    try await drafts.modify(Self.draftName(draft.id)) { kept in (draft, kept == nil) }
  }

  /// Ends the draft of survey `id`; the draft it was, `nil` when there was none.
  @discardableResult
  public func discardDraft(_ id: SurveyID) async throws -> EditorDraft? {
    while true {
      guard let kept = try await drafts.read(Self.draftName(id)) else { return nil }
      if try await drafts.delete(Self.draftName(id), at: kept.version) { return kept.record }
    }
  }

  /// A version of a survey as it was published before it was replaced.
  public func version(_ version: Int, of id: SurveyID) async throws -> Survey? {
    try await versions.read(Self.versionName(id, version))?.record
  }

  /// The catalog as last loaded.
  public var surveys: [Survey] { loaded.withLock { $0?.surveys ?? [] } }

  /// The surveys as the features reach them.
  public var client: SurveyClient {
    SurveyClient(
      fetchAll: { [self] in surveys },
      fetchByCategory: { [self] category in surveys.filtered(by: category) },
      fetch: { [self] id in loaded.withLock { $0?.byID[id] } }
    )
  }
}

/// The store has no catalog: it was never seeded, or was emptied by hand.
struct CatalogMissing: Error, CustomStringConvertible {
  var description: String { "the store has no survey catalog" }
}
