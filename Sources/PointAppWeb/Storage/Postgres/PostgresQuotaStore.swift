import Foundation
import PointApp
import PostgresNIO
import Synchronization

/// Quotas in PostgreSQL (`survey_quotas`: places taken per survey; `quota_places`: who holds
/// them). A claim made during a user's update (`PostgresUserStateStore.update`) runs in that
/// update's transaction: the place and the answer it is for commit together or not at all, so no
/// place is ever open, and a crash leaves nothing to settle. The survey's row is locked from the
/// claim to the commit: claimers of one survey, on every instance, take turns, and the count never
/// passes the places.
public final class PostgresQuotaStore: QuotaStore {
  let database: Database
  /// `taken()` is read at most once a second per instance: lists may lag by as much (a claim or
  /// settling here reads it anew), a claim never.
  private let recent = Mutex<(at: ContinuousClock.Instant, taken: [SurveyID: Int])?>(nil)
  static let takenKeptFor = Duration.seconds(1)

  public init(_ database: Database) {
    self.database = database
  }

  public var placesCommitWithUpdate: Bool { true }

  public func claim(_ survey: SurveyID, places: Int, for user: UserID) async throws -> Bool {
    // One statement: a place already held; else a count under the places raised, and the holder
    // noted. A row locked by another claimer is waited for and its new count checked. A count seen
    // full is final (places are only given back outside updates), so it is refused without
    // taking the row's lock, which would be held to the end of the update.
    let query: PostgresQuery = """
      WITH held AS (SELECT 1 FROM quota_places WHERE survey_id = \(survey.rawValue) AND user_id = \(user.rawValue)),
      counted AS (
        INSERT INTO survey_quotas AS q (survey_id, taken)
          SELECT \(survey.rawValue), 1 WHERE \(places) > 0 AND NOT EXISTS (SELECT 1 FROM held)
            AND NOT EXISTS (SELECT 1 FROM survey_quotas WHERE survey_id = \(survey.rawValue) AND taken >= \(places))
        ON CONFLICT (survey_id) DO UPDATE SET taken = q.taken + 1 WHERE q.taken < \(places)
        RETURNING 1
      ),
      placed AS (INSERT INTO quota_places (survey_id, user_id) SELECT \(survey.rawValue), \(user.rawValue) FROM counted RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM held) OR EXISTS (SELECT 1 FROM placed)
      """
    let rows = try await database.query(query)
    recent.withLock { $0 = nil }
    return try rows.first?.decode(Bool.self) ?? false
  }

  /// Places commit with their user's update: kept already, or rolled back with it. Giving one back
  /// (`keep: false`) removes it, for a place claimed outside any update.
  public func settle(_ place: QuotaPlace, keep: Bool) async throws {
    guard !keep else { return }
    try await database.transaction { connection in
      let removed = try await connection.run(
        "DELETE FROM quota_places WHERE survey_id = \(place.survey.rawValue) AND user_id = \(place.user.rawValue) RETURNING 1",
        logger: database.logger
      )
      guard !removed.isEmpty else { return }
      try await connection.run("UPDATE survey_quotas SET taken = taken - 1 WHERE survey_id = \(place.survey.rawValue)", logger: database.logger)
    }
    recent.withLock { $0 = nil }
  }

  public func unsettled() async throws -> [QuotaPlace] { [] }

  public func taken() async throws -> [SurveyID: Int] {
    let now = ContinuousClock.now
    if let recent = recent.withLock({ $0 }), now - recent.at < Self.takenKeptFor { return recent.taken }
    // Inside a user's update, on its connection (`Database.query`).
    let rows = try await database.query("SELECT survey_id, taken FROM survey_quotas")
    var taken: [SurveyID: Int] = [:]
    for row in rows {
      let (survey, count) = try row.decode((String, Int).self)
      taken[SurveyID(survey)] = count
    }
    recent.withLock { $0 = (now, taken) }
    return taken
  }
}

