import Dependencies
import DependenciesMacros
import Foundation

/// The survey catalog: the outside world's surveys, reached only through this client.
@DependencyClient
public struct SurveyClient: Sendable {
  /// Every survey of the catalog, expired ones included.
  public var fetchAll: @Sendable () async throws -> [Survey]
  /// The surveys of one category.
  public var fetchByCategory: @Sendable (_ category: SurveyCategory) async throws -> [Survey]
  /// One survey; `nil` when the catalog has no such id.
  public var fetch: @Sendable (_ id: SurveyID) async throws -> Survey?
}

extension SurveyClient {
  /// A client over a fixed list of surveys.
  public static func catalog(_ surveys: [Survey]) -> SurveyClient {
    let byID = Dictionary(uniqueKeysWithValues: surveys.map { ($0.id, $0) })
    return SurveyClient(
      fetchAll: { surveys },
      fetchByCategory: { category in surveys.filtered(by: category) },
      fetch: { id in byID[id] }
    )
  }
}

extension SurveyClient: DependencyKey {
  /// The catalog shipped with the package, dated from the moment the process started. A server
  /// serves its store's catalog instead (seeded once from the shipped one).
  public static let liveValue = SurveyClient.catalog(Catalog.shipped(seededAt: Date()))
  public static let previewValue = liveValue
  public static let testValue = SurveyClient()
}

extension DependencyValues {
  public var surveyClient: SurveyClient {
    get { self[SurveyClient.self] }
    set { self[SurveyClient.self] = newValue }
  }
}

/// The surveys shipped as a package resource.
///
/// Its dates are written relative to the moment it is seeded (`publishedDaysAgo`, `closesInDays`:
/// days from the start of that day in Tokyo), so that a new install on any date has the same open
/// catalog: a catalog of fixed dates would close itself one deadline at a time.
public enum Catalog {
  /// Decodes a catalog file.
  public static func decode(_ data: Data) throws -> [Survey] {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode([Survey].self, from: data)
  }

  /// The shipped catalog as seeded at `moment`. A broken resource is a packaging bug: it stops the
  /// program.
  public static func shipped(seededAt moment: Date) -> [Survey] {
    do {
      return try dated(resource, from: moment)
    } catch {
      fatalError("catalog.json cannot be read: \(error)")
    }
  }

  /// A catalog whose dates are days from `moment`'s day, as dated surveys.
  public static func dated(_ data: Data, from moment: Date) throws -> [Survey] {
    guard let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
      throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a catalog is a list of surveys"))
    }
    let day = Calendar.tokyo.startOfDay(for: moment)
    // FoundationEssentials' format, not `ISO8601DateFormatter` (CoreFoundation's, on ICU): the
    // same text, and 1.7 MB less of ICU in every server's memory from its start (BENCHMARKS.md).
    let dated = entries.map { entry -> [String: Any] in
      var entry = entry
      if let days = entry.removeValue(forKey: "publishedDaysAgo") as? Int {
        entry["publishedAt"] = day.addingTimeInterval(-Double(days) * 86_400).formatted(.iso8601)
      }
      if let days = entry.removeValue(forKey: "closesInDays") as? Int {
        entry["expiresAt"] = day.addingTimeInterval(Double(days) * 86_400).formatted(.iso8601)
      }
      return entry
    }
    return try decode(JSONSerialization.data(withJSONObject: dated))
  }

  private static let resource: Data = {
    guard let url = Bundle.module.url(forResource: "catalog", withExtension: "json"), let data = try? Data(contentsOf: url) else {
      fatalError("catalog.json is missing from the PointApp bundle")
    }
    return data
  }()
}
