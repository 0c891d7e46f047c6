import Foundation
import PointApp
import Synchronization

/// Surveys' quotas as records (`RecordKind.quotas`): a survey's places taken, `q~<survey>`, a
/// quota cell's, `q~<survey>~<cell>`, and each holder's place, `p~<survey>~<user>`; one
/// implementation over any backend. A place is
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
    let value = Mutex<(at: ContinuousClock.Instant, surveys: [SurveyID], taken: [SurveyID: Taken])?>(nil)
  }

  public init(_ backend: any RecordBackend) {
    taken = Records(backend.table(.quotas))
    places = Records(backend.table(.quotas))
  }

  static func count(_ survey: SurveyID) -> RecordName { RecordName("q~", survey.rawValue) }
  static func count(_ survey: SurveyID, cell: String) -> RecordName { RecordName("q~", survey.rawValue + "~" + cell) }
  static func place(_ survey: SurveyID, _ user: UserID) -> RecordName { RecordName("p~", survey.rawValue + "~" + user.rawValue) }

  /// Takes one of `limit` places of `survey` for `user` (`nil`: no overall limit) and one of
  /// `cell`'s, unless either is full (`false`): both or neither. A user who holds one keeps it
  /// (`true`) and takes no second one. Inside the user's update: the counts are held to its end,
  /// the overall one first, the cell's next (always in that order, so claimers never wait on each
  /// other in a circle).
  public func claim(_ survey: SurveyID, places limit: Int?, cell: QuotaCells.Cell? = nil, for user: UserID) async throws -> Bool {
    if try await places.read(Self.place(survey, user)) != nil { return true }
    defer { recent.value.withLock { $0 = nil } }  // what the user sees next counts anew
    var counts: [(RecordName, Int)] = []
    if let limit { counts.append((Self.count(survey), limit)) }
    if let cell { counts.append((Self.count(survey, cell: cell.name), cell.limit)) }
    // A count seen full is final (a place is given back only within the update that took it,
    // before it commits), so it is refused without holding the count to the end of the update.
    for (name, limit) in counts where try await taken.read(name).map({ $0.record >= limit }) ?? (limit <= 0) { return false }
    var claimed: [RecordName] = []
    /// The places taken before a refusal or a failure in this claim, given back within the same
    /// update: it commits none of them.
    func giveBack() async throws {
      for name in claimed { _ = try await taken.modify(name) { count in (Swift.max(0, (count ?? 1) - 1), true) } }
    }
    do {
      for (name, limit) in counts {
        let took = try await taken.modify(name) { count in (count ?? 0) < limit ? ((count ?? 0) + 1, true) : (nil, false) }
        guard took else {
          try await giveBack()
          return false
        }
        claimed.append(name)
      }
      _ = try await places.create(true, as: Self.place(survey, user))
    } catch {
      try? await giveBack()
      throw error
    }
    return true
  }

  /// The places taken of each of `surveys`, overall and by cell.
  public func taken(of surveys: [Survey]) async throws -> [SurveyID: Taken] {
    let now = ContinuousClock.now
    let ids = surveys.map(\.id)
    if let kept = recent.value.withLock({ $0 }), kept.surveys == ids, now - kept.at < .seconds(1) { return kept.taken }
    var counts: [SurveyID: Taken] = [:]
    for survey in surveys {
      var count = Taken(places: try await taken(survey.id))
      for cell in survey.cells?.cells ?? [] { count.cells[cell.name] = try await taken(survey.id, cell: cell.name) }
      counts[survey.id] = count
    }
    recent.value.withLock { $0 = (now, ids, counts) }
    return counts
  }

  /// The places taken of `survey`, or of its `cell`, as committed.
  func taken(_ survey: SurveyID, cell: String? = nil) async throws -> Int {
    try await taken.read(cell.map { Self.count(survey, cell: $0) } ?? Self.count(survey))?.record ?? 0
  }

  /// `surveys` with the places taken of their quotas and cells counted.
  func counted(_ surveys: [Survey]) async throws -> [Survey] {
    let limited = surveys.filter { $0.quota != nil || $0.cells != nil }
    guard !limited.isEmpty else { return surveys }
    let taken = try await taken(of: limited)
    return surveys.map { survey in taken[survey.id].map { survey.counting(taken: $0.places, cells: $0.cells) } ?? survey }
  }

  /// A survey's places taken: overall, and of each cell by its name.
  public struct Taken: Equatable, Sendable {
    public var places: Int
    public var cells: [String: Int] = [:]
  }

  /// Whether `user` holds a place in `survey`.
  func holds(_ survey: SurveyID, _ user: UserID) async throws -> Bool {
    try await places.read(Self.place(survey, user)) != nil
  }

  /// The client that claims places for `user`.
  func client(for user: UserID) -> QuotaClient {
    QuotaClient(claim: { survey, limit, cell in try await claim(survey, places: limit, cell: cell, for: user) })
  }
}

extension SurveyClient {
  /// The catalog with each quota's places taken counted from `quotas`, as a research panel's
  /// survey feed reports them.
  func counting(_ quotas: Quotas) -> SurveyClient {
    @Sendable func counted(_ surveys: [Survey]) async throws -> [Survey] { try await quotas.counted(surveys) }
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
