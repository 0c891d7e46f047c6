import Foundation
import PointApp
import Synchronization

/// Every finished answer as its survey's client gets it (`SurveyResponse`), in the record layer
/// (`data/responses/`, the `responses` table): one record per respondent of a survey,
/// `<survey>~<respondent>`, created once and never changed.
///
/// A response is recorded during its user's update, before the answer it is for is saved, and
/// must exist exactly when that answer was saved. A store whose records commit with the user's
/// update (PostgreSQL: the same transaction) needs nothing more. On the others the response is
/// written pending (as `<user>~<survey>~<respondent>` in the process's journal under
/// `data/responses-pending/`, one fsync shared with the answers saved at the same moment) while
/// the user's state is written (`UserSave.before`), and settled off the request's path: once a
/// second, and before the counts or the responses are read, those whose answers were saved take
/// their place among the responses and are counted. One whose save failed, or that a crash left
/// pending, is settled by the user's saved state, as quota places are: kept where it holds the
/// answer, dropped where it does not.
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
  static func countsName(_ survey: SurveyID) -> RecordName { RecordName("#counts~", survey.rawValue) }

  /// The counts, and the pending responses counted whose markers may still be there: a response
  /// settled again after a crash is not counted twice.
  struct StoredCounts: Codable, Sendable {
    var counts = ResponseCounts()
    var applied: Set<String> = []
  }

  private let responses: Records<Key, SurveyResponse>
  private let counts: Records<RecordName, StoredCounts>
  /// `nil`: responses commit with the user's update.
  private let pending: Records<Pending, Marker>?
  /// The pending responses whose answers were saved, for the next settling.
  private let saved = Mutex<[Pending]>([])
  /// Settlings one at a time: a response is counted by one of them.
  private let settling = KeyedMutex<Int>()

  /// A response written before the save of its answer.
  struct Marker: Codable, Sendable {
    /// The response, new.
    var response: SurveyResponse?
    /// A response moved to another respondent (a guest's, into the account they signed in to):
    /// the record it replaces, whose counts it keeps (the moved one is written already).
    var replaces: String?
    /// The response recorded invalid is approved, paying this: it becomes a complete.
    var approves: PointAmount?
  }

  /// Where processes that are gone left responses pending: journals this process now has.
  private let orphans: @Sendable () throws -> [JournalRecordStorage]

  /// `pending`: where pending responses go, for a store whose writes do not commit with users'
  /// updates; `orphans`: those that other processes (sharing the data folder) left.
  public init(
    _ storage: any RecordStorage, pending: (any RecordStorage)?, orphans: @escaping @Sendable () throws -> [JournalRecordStorage] = { [] }
  ) {
    responses = Records(storage)
    counts = Records(storage)
    self.pending = pending.map { Records($0) }
    self.orphans = orphans
  }

  /// A survey's counts, those of the responses saved so far.
  public func counts(of survey: SurveyID) async throws -> ResponseCounts {
    try await settleSaved()
    return try await counts.read(Self.countsName(survey))?.record.counts ?? ResponseCounts()
  }

  public var commitsWithUpdate: Bool { pending == nil }

  /// Records a user's responses during their update, before its save. A response recorded
  /// already (the same answer, sent again after a failure) stays as it was.
  public func record(_ finished: [SurveyResponse], of user: UserID) async throws {
    for response in finished {
      let key = Key(response.surveyID, response.respondent)
      if let pending {
        _ = try await pending.create(Marker(response: response), as: Pending(user, key))
      } else if try await responses.create(response, as: key) {
        // The record commits with the update, and so do its counts.
        try await counts.modify(Self.countsName(response.surveyID)) { stored in
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
  func move(_ moves: [(from: Key, to: Key)], of user: UserID, from guest: UserID, in users: UserStates) async throws {
    // A response the guest has just given may still be pending.
    try await settleSaved()
    for (from, to) in moves {
      var found = try await responses.read(from)?.record
      if found == nil, pending != nil {
        // Pending still: its answer saved, its request not yet told (or told "not known").
        try await settle([from], of: guest, from: users)
        found = try await responses.read(from)?.record
      }
      guard let moved = found else { continue }
      if let pending { _ = try await pending.create(Marker(replaces: from.recordName), as: Pending(user, to)) }
      _ = try await responses.create(moved.respondent(to.respondent), as: to)
      if let old = try await responses.read(from) { _ = try await responses.delete(from, at: old.version) }
    }
  }

  /// Makes the invalid responses whose answers the support desk approved completes (paying
  /// `paid`), during the user's update, as a recording is: on PostgreSQL in its transaction;
  /// elsewhere pending until the update's save is known. Settled, one is counted again once.
  func approve(_ approvals: [(key: Key, paid: PointAmount)], of user: UserID) async throws {
    guard let pending else {
      for (key, paid) in approvals { try await approveNow(key, paying: paid, counted: nil) }
      return
    }
    // The response itself may still be pending.
    try await settleSaved()
    for (key, paid) in approvals { _ = try await pending.create(Marker(approves: paid), as: Pending(user, key)) }
  }

  /// Rewrites an invalid response as approved and moves its counts, once: a response that is not
  /// invalid (approved already) is left as it is. `counted`: the name noted in the counts'
  /// `applied` while the rewrite is pending, so that a settling after a crash counts it once.
  private func approveNow(_ key: Key, paying paid: PointAmount, counted name: String?) async throws {
    guard let old = try await responses.read(key), old.record.outcome == .invalid else { return }
    let new = old.record.approved(paying: paid)
    try await counts.modify(Self.countsName(key.survey)) { stored in
      var stored = stored ?? StoredCounts()
      if let name {
        guard stored.applied.insert(name).inserted else { return (nil, ()) }
      }
      stored.counts.remove(old.record)
      stored.counts.add(new)
      return (stored, ())
    }
    _ = try await responses.replace(key, with: new, at: old.version)
  }

  /// Ends what an update recorded, once its save is known: kept (`saved`: settled with the next
  /// settling) or taken back.
  public func settle(_ finished: [SurveyResponse], of user: UserID, saved: Bool) async throws {
    try await settle(finished.map { Key($0.surveyID, $0.respondent) }, of: user, saved: saved)
  }

  func settle(_ keys: [Key], of user: UserID, saved isSaved: Bool) async throws {
    guard pending != nil else { return }
    let markers = keys.map { Pending(user, $0) }
    if isSaved {
      saved.withLock { $0 += markers }
    } else {
      try await settling.withLock(0) { try await settleNow(markers.map { ($0, false) }) }
    }
  }

  /// Settles the responses whose answers were saved since the last settling: once a second, and
  /// before anything is read from the responses.
  public func settleSaved() async throws {
    guard pending != nil else { return }
    try await settling.withLock(0) {
      let markers = saved.withLock { saved in
        defer { saved = [] }
        return saved
      }
      guard !markers.isEmpty else { return }
      do {
        try await settleNow(markers.map { ($0, true) })
      } catch {
        saved.withLock { $0 = markers + $0 }  // tried again next time
        throw error
      }
    }
  }

  /// Ends pending responses, all at once (their writes share their syncs). A new response kept
  /// is counted, then written among the responses, then its marker goes; counted, it is noted as
  /// counted (`applied`) until its marker has gone, so that settled again after a crash between
  /// the steps it is not counted twice; one found among the responses already is not counted
  /// again either (its marker's removal was lost). One not kept just goes. A move kept drops the
  /// record it replaced; not kept, it is put back.
  private func settleNow(_ items: [(marker: Pending, saved: Bool)]) async throws {
    guard let pending else { return }
    var seen = Set<String>()
    let unique = items.filter { seen.insert($0.marker.recordName).inserted }
    // Those still pending: one settled already is not settled again.
    let found = try await Self.together(unique) { item in try await pending.read(item.marker).map { (item, $0) } }.compactMap { $0 }
    var kept: [(marker: Pending, version: Int64, response: SurveyResponse)] = []
    var done: [(marker: Pending, version: Int64)] = []
    var approved: [Pending] = []
    for (item, marker) in found {
      if let paid = marker.record.approves {
        // Rare (a support desk's approval): one by one, before its marker goes.
        if item.saved {
          try await approveNow(item.marker.response, paying: paid, counted: item.marker.recordName)
          approved.append(item.marker)
        }
        done.append((item.marker, marker.version))
      } else if let replaced = marker.record.replaces.flatMap(Key.init(recordName:)) {
        let key = item.marker.response
        if item.saved {
          if let old = try await responses.read(replaced) { _ = try await responses.delete(replaced, at: old.version) }
        } else if let moved = try await responses.read(key) {
          _ = try await responses.create(moved.record.respondent(replaced.respondent), as: replaced)
          _ = try await responses.delete(key, at: moved.version)
        }
        done.append((item.marker, marker.version))
      } else if item.saved, let response = marker.record.response {
        kept.append((item.marker, marker.version, response))
      } else {
        done.append((item.marker, marker.version))
      }
    }
    let bySurvey = Array(Dictionary(grouping: kept, by: \.marker.response.survey))
    // Among the responses already: settled before, its marker's removal lost in a crash.
    let listed = Set(try await Self.together(kept) { [responses] in try await responses.read($0.marker.response) == nil ? nil : $0.marker.recordName }.compactMap { $0 })
    _ = try await Self.together(bySurvey) { [counts] survey, kept in
      try await counts.modify(Self.countsName(survey)) { stored in
        var stored = stored ?? StoredCounts()
        let new = kept.filter { !stored.applied.contains($0.marker.recordName) && !listed.contains($0.marker.recordName) }
        guard !new.isEmpty else { return (nil, ()) }
        for each in new {
          stored.counts.add(each.response)
          stored.applied.insert(each.marker.recordName)
        }
        return (stored, ())
      }
    }
    _ = try await Self.together(kept) { [responses] in try await responses.create($0.response, as: $0.marker.response) }
    _ = try await Self.together(kept.map { ($0.marker, $0.version) } + done) { try await pending.delete($0.marker, at: $0.version) }
    let counted = Array(Dictionary(grouping: kept.map(\.marker) + approved, by: \.response.survey))
    _ = try await Self.together(counted) { [counts] survey, markers in
      try await counts.modify(Self.countsName(survey)) { stored in
        guard var stored else { return (nil, ()) }
        let before = stored.applied.count
        stored.applied.subtract(markers.map(\.recordName))
        return (stored.applied.count == before ? nil : stored, ())
      }
    }
  }

  /// `body` for every element at once; what each gave back.
  private static func together<Element: Sendable, Result: Sendable>(
    _ elements: [Element], _ body: @escaping @Sendable (Element) async throws -> Result
  ) async throws -> [Result] {
    try await withThrowingTaskGroup(of: Result.self) { group in
      for element in elements { group.addTask { try await body(element) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
  }

  /// Settles the responses recorded for `user` that are still pending, from the user's saved
  /// state, under the user's lock: kept where it holds an answer to the survey (an approval:
  /// where it holds the answer paid), taken back where it does not. For an update whose save is
  /// not known, and at start-up after a crash.
  func settle(_ keys: [Key], of user: UserID, from users: UserStates) async throws {
    guard let pending, !keys.isEmpty else { return }
    try await users.update(user) { data in
      let state = try await UserFiles.load(data, of: user, surveys: keys.map(\.survey), from: users, cache: SavedStateCache())
      var items: [(Pending, Bool)] = []
      for key in keys {
        let marker = Pending(user, key), answer = state.progress.answer(to: key.survey)
        let approves = try await pending.read(marker)?.record.approves != nil
        items.append((marker, approves ? answer?.isCompleted == true : answer != nil))
      }
      try await settling.withLock(0) { try await settleNow(items) }
      return (nil, ())
    }
  }

  /// Settles every response a crash left pending, in this store's pending records and in the
  /// journals of processes that are gone (removed then), at start-up, before requests are
  /// served; how many there were.
  func settlePending(from users: UserStates) async throws -> Int {
    guard let pending else { return 0 }
    var count = try await Self.settle(pending.storage, from: users, by: self)
    for journal in try orphans() {
      count += try await Self.settle(journal, from: users, by: ResponseStore(responses.storage, pending: journal))
      try journal.remove()
    }
    return count
  }

  private static func settle(_ pending: any RecordStorage, from users: UserStates, by store: ResponseStore) async throws -> Int {
    let records = Records<Pending, Marker>(pending)
    var all: [Pending] = []
    var after: Pending?
    while case let page = try await records.keys(after: after, limit: 500), let last = page.last {
      all += page
      after = last
    }
    for (user, markers) in Dictionary(grouping: all, by: \.user) {
      try await store.settle(markers.map(\.response), of: user, from: users)
    }
    return all.count
  }

  /// The responses recorded for `respondents` (by survey, each survey's respondent), settled
  /// first: a survey without one is left out.
  public func responses(by respondents: [SurveyID: String]) async throws -> [SurveyID: SurveyResponse] {
    try await settleSaved()
    var found: [SurveyID: SurveyResponse] = [:]
    for (survey, respondent) in respondents {
      found[survey] = try await responses.read(Key(survey, respondent))?.record
    }
    return found
  }

  /// Up to `limit` responses of `survey`, in the order of their respondents, after `respondent`.
  public func responses(of survey: SurveyID, after respondent: String? = nil, limit: Int) async throws -> [SurveyResponse] {
    if respondent == nil { try await settleSaved() }
    let page = try await responses.storage.records(prefixed: survey.rawValue + "~", after: respondent.map { Key(survey, $0).recordName }, limit: limit)
    // Read by the reader made for them, or by `JSONDecoder` where it cannot.
    return try page.map { record in
      try (try? ResponseReader.response(from: record.data)) ?? SavedJSON.decode(SurveyResponse.self, from: record.data)
    }
  }
}
