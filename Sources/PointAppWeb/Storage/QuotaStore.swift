import Foundation
import PointApp
import Synchronization

/// Surveys' quotas as records (`RecordKind.quotas`): a survey's places taken, `q~<survey>`, and
/// each holder's place, `p~<survey>~<user>`; one implementation over any backend. A place is
/// claimed during its user's update (`UserStates.update`), so it commits with the answer it is
/// for, or not at all: nothing is ever left open, whatever crash comes. The count is read for
/// update: claimers of one survey, in every process and instance, take turns from their claim to
/// their commit, and a survey never gives more places than it has.
public struct Quotas: Sendable {
  private let taken: Records<RecordName, Int>
  private let places: Records<RecordName, Bool>
  /// `taken(of:)` reads the counts at most once a second per process: lists may lag by as much
  /// (a claim here reads them anew), a claim never.
  private let recent = Recent()

  private final class Recent: Sendable {
    let value = Mutex<(at: ContinuousClock.Instant, surveys: [SurveyID], taken: [SurveyID: Int])?>(nil)
  }

  public init(_ backend: any RecordBackend) {
    taken = Records(backend.table(.quotas))
    places = Records(backend.table(.quotas))
  }

  static func count(_ survey: SurveyID) -> RecordName { RecordName("q~", survey.rawValue) }
  static func place(_ survey: SurveyID, _ user: UserID) -> RecordName { RecordName("p~", survey.rawValue + "~" + user.rawValue) }

  /// Takes one of `limit` places of `survey` for `user`, unless all are taken (`false`). A user
  /// who holds one keeps it (`true`) and takes no second one. Inside the user's update.
  public func claim(_ survey: SurveyID, places limit: Int, for user: UserID) async throws -> Bool {
    if try await places.read(Self.place(survey, user)) != nil { return true }
    // A count seen full is final (places are never given back), so it is refused without
    // holding the count to the end of the update.
    if try await taken.read(Self.count(survey)).map({ $0.record >= limit }) ?? (limit <= 0) { return false }
    let claimed = try await taken.modify(Self.count(survey)) { count in
      (count ?? 0) < limit ? ((count ?? 0) + 1, true) : (nil, false)
    }
    if claimed { _ = try await places.create(true, as: Self.place(survey, user)) }
    recent.value.withLock { $0 = nil }
    return claimed
  }

  /// The places taken of each of `surveys`.
  public func taken(of surveys: [SurveyID]) async throws -> [SurveyID: Int] {
    let now = ContinuousClock.now
    if let kept = recent.value.withLock({ $0 }), kept.surveys == surveys, now - kept.at < .seconds(1) { return kept.taken }
    var counts: [SurveyID: Int] = [:]
    for survey in surveys {
      counts[survey] = try await taken.read(Self.count(survey))?.record ?? 0
    }
    recent.value.withLock { $0 = (now, surveys, counts) }
    return counts
  }

  /// Whether `user` holds a place in `survey`.
  func holds(_ survey: SurveyID, _ user: UserID) async throws -> Bool {
    try await places.read(Self.place(survey, user)) != nil
  }

  /// The client that claims places for `user`.
  func client(for user: UserID) -> QuotaClient {
    QuotaClient(claim: { survey, limit in try await claim(survey, places: limit, for: user) })
  }
}

extension SurveyClient {
  /// The catalog with each quota's places taken counted from `quotas`, as a research panel's
  /// survey feed reports them.
  func counting(_ quotas: Quotas) -> SurveyClient {
    @Sendable func counted(_ surveys: [Survey]) async throws -> [Survey] {
      let limited = surveys.filter { $0.quota != nil }.map(\.id)
      guard !limited.isEmpty else { return surveys }
      let taken = try await quotas.taken(of: limited)
      return surveys.map { $0.quota == nil ? $0 : $0.counting(taken: taken[$0.id] ?? 0) }
    }
    return SurveyClient(
      fetchAll: { try await counted(fetchAll()) },
      fetchByCategory: { try await counted(fetchByCategory($0)) },
      fetch: { try await fetch($0).asyncMap { try await counted([$0])[0] } }
    )
  }
}

extension Optional {
  fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
    guard let self else { return nil }
    return try await transform(self)
  }
}
