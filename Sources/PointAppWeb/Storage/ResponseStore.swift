import Foundation
import PointApp

/// Every finished answer as its survey's client gets it (`SurveyResponse`), in the record layer
/// (`data/responses/`, the `responses` table): one record per respondent of a survey,
/// `<survey>~<respondent>`, created once and never changed.
///
/// A response is recorded during its user's update, before the answer it is for is saved, and
/// must exist exactly when that answer was saved. A store whose records commit with the user's
/// update (PostgreSQL: the same transaction) needs nothing more. On the others a marker
/// (`data/responses-pending/<user>~<survey>~<respondent>`) is written first and stays until the
/// update is over: removed once the answer is saved; on a failure, or at the next start after a
/// crash, the user's saved state decides, as for quota places: the response stays where it holds
/// the answer and goes where it does not.
public final class ResponseStore: Sendable {
  struct Key: RecordKey {
    let survey: SurveyID
    let respondent: String
    var recordName: String { survey.rawValue + "~" + respondent }
    init(_ survey: SurveyID, _ respondent: String) { (self.survey, self.respondent) = (survey, respondent) }
    init?(recordName: String) {
      let parts = recordName.split(separator: "~", omittingEmptySubsequences: false)
      guard parts.count == 2 else { return nil }
      (survey, respondent) = (SurveyID(String(parts[0])), String(parts[1]))
    }
  }

  /// A response recorded in an update whose outcome is not known yet.
  struct Pending: RecordKey {
    let user: UserID
    let response: Key
    var recordName: String { user.rawValue + "~" + response.recordName }
    init(_ user: UserID, _ response: Key) { (self.user, self.response) = (user, response) }
    init?(recordName: String) {
      guard let tilde = recordName.firstIndex(of: "~"), let user = UserID(recordName[..<tilde]),
        let response = Key(recordName: String(recordName[recordName.index(after: tilde)...]))
      else { return nil }
      (self.user, self.response) = (user, response)
    }
  }

  /// A survey's counts, beside its responses: `#counts~<survey>` (no survey id starts with `#`).
  struct CountsKey: RecordKey {
    let survey: SurveyID
    var recordName: String { "#counts~" + survey.rawValue }
    init(_ survey: SurveyID) { self.survey = survey }
    init?(recordName: String) {
      guard recordName.hasPrefix("#counts~") else { return nil }
      survey = SurveyID(String(recordName.dropFirst(8)))
    }
  }

  /// The counts, and the pending responses counted whose markers may still be there: a response
  /// settled again after a crash is not counted twice.
  struct StoredCounts: Codable, Sendable {
    var counts = ResponseCounts()
    var applied: Set<String> = []
  }

  private let responses: Records<Key, SurveyResponse>
  private let counts: Records<CountsKey, StoredCounts>
  /// `nil`: responses commit with the user's update.
  private let pending: Records<Pending, Marker>?

  struct Marker: Codable, Sendable {
    /// A response moved to another respondent (a guest's, into the account they signed in to):
    /// the record it replaces, whose counts it keeps. `nil`: a new response.
    var replaces: String?
  }

  /// `pending`: where markers go, for a store whose writes do not commit with users' updates.
  public init(_ storage: any RecordStorage, pending: (any RecordStorage)?) {
    responses = Records(storage)
    counts = Records(storage)
    self.pending = pending.map { Records($0) }
  }

  /// A survey's counts, as of the responses settled.
  public func counts(of survey: SurveyID) async throws -> ResponseCounts {
    try await counts.read(CountsKey(survey))?.record.counts ?? ResponseCounts()
  }

  public var commitsWithUpdate: Bool { pending == nil }

  /// Records a user's responses during their update, before its save. A response recorded
  /// already (the same answer, sent again after a failure) stays as it was.
  public func record(_ finished: [SurveyResponse], of user: UserID) async throws {
    for response in finished {
      let key = Key(response.surveyID, response.respondent)
      if let pending { _ = try await pending.create(Marker(), as: Pending(user, key)) }
      let created = try await responses.create(response, as: key)
      // Where the record commits with the update, so do its counts; elsewhere they are counted
      // once the response is kept.
      if created, pending == nil {
        try await counts.modify(CountsKey(response.surveyID)) { stored in
          var stored = stored ?? StoredCounts()
          stored.counts.add(response)
          return (stored, ())
        }
      }
    }
  }

  /// Moves responses to the respondent the same answers have in another user's data (a guest's,
  /// when they sign in to an account that takes their answers), during that user's update, as a
  /// recording is: on PostgreSQL in its transaction; elsewhere pending, and put back as it was
  /// when the update's save fails. Counted once, as they were.
  func move(_ moves: [(from: Key, to: Key)], of user: UserID) async throws {
    for (from, to) in moves {
      guard let moved = try await responses.read(from)?.record else { continue }
      if let pending { _ = try await pending.create(Marker(replaces: from.recordName), as: Pending(user, to)) }
      _ = try await responses.create(moved.respondent(to.respondent), as: to)
      if let old = try await responses.read(from) { _ = try await responses.delete(from, at: old.version) }
    }
  }

  /// Ends what an update recorded, once its save is known: kept (`saved`) or taken back.
  public func settle(_ finished: [SurveyResponse], of user: UserID, saved: Bool) async throws {
    try await settle(finished.map { Key($0.surveyID, $0.respondent) }, of: user, saved: saved)
  }

  /// A kept response is counted before its marker goes, and noted as counted (`applied`) until it
  /// has: settled again after a crash between the two, it is not counted twice.
  func settle(_ keys: [Key], of user: UserID, saved: Bool) async throws {
    guard let pending else { return }
    for key in keys {
      let marker = Pending(user, key)
      guard let found = try await pending.read(marker) else { continue }  // settled already
      if let replaced = found.record.replaces.flatMap(Key.init(recordName:)) {
        // A move: kept, the record it replaced goes; not saved, it is put back.
        if saved {
          if let old = try await responses.read(replaced) { _ = try await responses.delete(replaced, at: old.version) }
        } else if let moved = try await responses.read(key) {
          _ = try await responses.create(moved.record.respondent(replaced.respondent), as: replaced)
          _ = try await responses.delete(key, at: moved.version)
        }
        _ = try await pending.delete(marker, at: found.version)
        continue
      }
      if saved, let response = try await responses.read(key)?.record {
        try await counts.modify(CountsKey(key.survey)) { stored in
          var stored = stored ?? StoredCounts()
          guard !stored.applied.contains(marker.recordName) else { return (nil, ()) }
          stored.counts.add(response)
          stored.applied.insert(marker.recordName)
          return (stored, ())
        }
      } else if !saved, let kept = try await responses.read(key) {
        _ = try await responses.delete(key, at: kept.version)
      }
      _ = try await pending.delete(marker, at: found.version)
      if saved {
        try await counts.modify(CountsKey(key.survey)) { stored in
          guard var stored, stored.applied.remove(marker.recordName) != nil else { return (nil, ()) }
          return (stored, ())
        }
      }
    }
  }

  /// Settles the responses recorded for `user` that are still pending, from the user's saved
  /// state, under the user's lock: kept where it holds an answer to the survey, taken back where
  /// it does not. For an update whose save is not known, and at start-up after a crash.
  func settle(_ keys: [Key], of user: UserID, from users: any UserStateStore) async throws {
    guard pending != nil, !keys.isEmpty else { return }
    try await users.update(user) { data in
      let state = try await UserFiles.load(data, of: user, surveys: keys.map(\.survey), from: users, cache: SavedStateCache())
      for key in keys {
        try await settle([key], of: user, saved: state.progress.answer(to: key.survey) != nil)
      }
      return (nil, ())
    }
  }

  /// Settles every response a crash left pending (at start-up, before requests are served); how
  /// many there were.
  func settlePending(from users: any UserStateStore) async throws -> Int {
    guard let pending else { return 0 }
    var all: [Pending] = []
    var after: Pending?
    while case let page = try await pending.keys(after: after, limit: 500), let last = page.last {
      all += page
      after = last
    }
    for (user, markers) in Dictionary(grouping: all, by: \.user) {
      try await settle(markers.map(\.response), of: user, from: users)
    }
    return all.count
  }

  /// Up to `limit` responses of `survey`, in the order of their respondents, after `respondent`.
  public func responses(of survey: SurveyID, after respondent: String? = nil, limit: Int) async throws -> [SurveyResponse] {
    try await responses.records(prefixed: survey.rawValue + "~", after: respondent.map { Key(survey, $0) }, limit: limit)
  }
}
