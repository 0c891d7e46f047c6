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
      fetchByCategory: { category in surveys.filter { $0.category == category } },
      fetch: { id in byID[id] }
    )
  }
}

extension SurveyClient: DependencyKey {
  /// The catalog shipped with the package, read once.
  public static let liveValue = SurveyClient.catalog(Catalog.shipped)
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
public enum Catalog {
  /// Decodes a catalog file.
  public static func decode(_ data: Data) throws -> [Survey] {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode([Survey].self, from: data)
  }

  /// The shipped catalog. A broken resource is a packaging bug: it stops the program at start-up.
  public static let shipped: [Survey] = {
    do {
      guard let url = Bundle.module.url(forResource: "catalog", withExtension: "json") else {
        fatalError("catalog.json is missing from the PointApp bundle")
      }
      return try decode(Data(contentsOf: url))
    } catch {
      fatalError("catalog.json cannot be read: \(error)")
    }
  }()
}
