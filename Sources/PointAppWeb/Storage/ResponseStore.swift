import Foundation
import PointApp

/// Every finished answer as its survey's client gets it (`SurveyResponse`), in the record layer
/// (the `responses` kind): one record per respondent of a survey, `<survey>~<respondent>`, created
/// once and changed only by an approval, with each survey's counts beside them. A response is
/// recorded in its user's update (`RecordBackend.holding`), so it commits with the answer it is
/// for, on every backend: it exists exactly when that answer was saved.
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

  /// A survey's counts, beside its responses: `#counts~<survey>` (no survey id starts with `#`).
  static func countsName(_ survey: SurveyID) -> RecordName { RecordName("#counts~", survey.rawValue) }

  /// The counts as stored (earlier programs kept more beside them, which is not read): numbers by
  /// name, which read back as written.
  struct StoredCounts: Codable, Equatable, Sendable, SavedExactly {
    var counts = ResponseCounts()
  }

  private let responses: Records<Key, SurveyResponse>
  private let counts: Records<RecordName, StoredCounts>
  /// On files, where each process counts what it records (`<survey>~<process>`, a record that it
  /// alone writes and that its commits write a moment later: `DeferredWrites`), beside the
  /// counts of each survey, which take those of processes gone at a start (`foldFinishedShards`).
  /// A record rewritten by every answer cost a fifth of P2's rate on files (BENCHMARKS.md).
  private let shards: (records: Records<RecordName, StoredCounts>, place: FileRecordStorage.CountShards)?

  public init(_ storage: any RecordStorage) {
    responses = Records(storage)
    counts = Records(storage)
    shards = ((storage as? FileRecordStorage)?.countShards).map { (Records($0.table), $0) }
  }

  /// A survey's counts, those of the responses saved so far: on files, those another process
  /// recorded in the last moment (a quarter of a second) may be missing. On files, read holding
  /// the survey's fold (`foldKey`): a start in another process writes the survey's counts and
  /// then removes the shard they took, and a read between the two would count it twice.
  public func counts(of survey: SurveyID) async throws -> ResponseCounts {
    guard let shards else { return try await counts.read(Self.countsName(survey))?.record.counts ?? ResponseCounts() }
    var total = ResponseCounts()
    try await shards.place.holding(Self.foldKey(survey)) {
      total = try await counts.read(Self.countsName(survey))?.record.counts ?? ResponseCounts()
      let own = Self.shardName(survey, shards.place.own)
      if let mine = try await shards.records.read(own) { total = total.adding(mine.record.counts) }
      for (name, data) in try await shards.place.table.records(prefixed: survey.rawValue + "~", after: nil, limit: .max)
      where name != own.recordName {
        total = total.adding(try SavedJSON.decode(StoredCounts.self, from: data).counts)
      }
    }
    return total
  }

  private static func shardName(_ survey: SurveyID, _ process: String) -> RecordName { RecordName(survey.rawValue, "~" + process) }

  /// What a start's fold of a survey's shards holds, and what a read of its counts holds on files.
  static func foldKey(_ survey: SurveyID) -> String { "counts " + survey.rawValue }

  /// Adds the counts of the processes gone (their commits finished by a start) to each survey's,
  /// each process's in a holding of the survey's counts that removes it, so that they count once
  /// whatever crash comes between; how many.
  func foldFinishedShards(in backend: any RecordBackend) async throws -> Int {
    guard let shards else { return 0 }
    var folded = 0
    for name in try await shards.place.table.allNames() {
      guard let tilde = name.lastIndex(of: "~") else { continue }
      let (survey, process) = (SurveyID(String(name[..<tilde])), String(name[name.index(after: tilde)...]))
      guard process != shards.place.own, shards.place.isFinished(process) else { continue }
      let found = try await backend.holding(Self.foldKey(survey)) { () -> Bool in
        guard let shard = try await shards.place.table.readForUpdate(name) else { return false }  // folded by another start
        let counted = try SavedJSON.decode(StoredCounts.self, from: shard.data).counts
        try await counts.modify(Self.countsName(survey)) { stored in
          var stored = stored ?? StoredCounts()
          stored.counts = stored.counts.adding(counted)
          return (stored, ())
        }
        return try await shards.place.table.delete(name, at: shard.version)
      }
      if found { folded += 1 }
    }
    return folded
  }

  /// Records a user's responses during their update. A response recorded already (the same
  /// answer, sent again after a failure) stays as it was.
  public func record(_ finished: [SurveyResponse]) async throws {
    for response in finished where try await responses.create(response, as: Key(response.surveyID, response.respondent)) {
      try await count(response.surveyID) { $0.add(response) }
    }
  }

  private func count(_ survey: SurveyID, _ change: @escaping @Sendable (inout ResponseCounts) -> Void) async throws {
    try await (shards?.records ?? counts).modify(shards.map { Self.shardName(survey, $0.place.own) } ?? Self.countsName(survey)) { stored in
      var stored = stored ?? StoredCounts()
      change(&stored.counts)
      return (stored, ())
    }
  }

  /// Moves responses to the respondent the same answers have in another user's data (a guest's,
  /// when they sign in to an account that takes their answers), during that user's update.
  /// Counted once, as they were.
  func move(_ moves: [(from: Key, to: Key)]) async throws {
    for (from, to) in moves {
      guard let moved = try await responses.read(from) else { continue }
      _ = try await responses.create(moved.record.respondent(to.respondent), as: to)
      _ = try await responses.delete(from, at: moved.version)
    }
  }

  /// Makes the invalid responses whose answers the support desk approved completes (paying
  /// `paid`), during the user's update, counted again as what they became; a response that is not
  /// invalid (approved already) is left as it is.
  func approve(_ approvals: [(key: Key, paid: PointAmount)]) async throws {
    for (key, paid) in approvals {
      guard let old = try await responses.read(key), old.record.outcome == .invalid else { continue }
      let new = old.record.approved(paying: paid)
      _ = try await responses.replace(key, with: new, at: old.version)
      try await count(key.survey) { counts in
        counts.remove(old.record)
        counts.add(new)
      }
    }
  }

  /// The responses recorded for `respondents` (by survey, each survey's respondent): a survey
  /// without one is left out.
  public func responses(by respondents: [SurveyID: String]) async throws -> [SurveyID: SurveyResponse] {
    var found: [SurveyID: SurveyResponse] = [:]
    for (survey, respondent) in respondents {
      found[survey] = try await responses.read(Key(survey, respondent))?.record
    }
    return found
  }

  /// Up to `limit` responses of `survey`, in the order of their respondents, after `respondent`.
  public func responses(of survey: SurveyID, after respondent: String? = nil, limit: Int) async throws -> [SurveyResponse] {
    try await stored(of: survey, after: respondent.map { Key(survey, $0).recordName }, limit: limit).map { try Self.response(from: $0.data) }
  }

  /// Up to `limit` of `survey`'s response records, in the order of their names, after the one
  /// named `name`, as stored: each made a response by `response(from:)` (an export does that on
  /// both cores while the next page is read).
  func stored(of survey: SurveyID, after name: String?, limit: Int) async throws -> [(name: String, data: Data)] {
    try await responses.storage.records(prefixed: survey.rawValue + "~", after: name, limit: limit)
  }

  /// A response record's response: read by the reader made for them, or by `JSONDecoder` where
  /// it cannot.
  static func response(from data: Data) throws -> SurveyResponse {
    try (try? ResponseReader.response(from: data)) ?? SavedJSON.decode(SurveyResponse.self, from: data)
  }
}

extension ResponseStore {
  /// What an earlier program left pending in `responses-pending/` (a journal per process, whose
  /// records `<user>~<survey>~<respondent>` are responses written before their answers' saves
  /// were known), settled by the users' saved states at the first start, then the folder goes: a
  /// response is kept where its user's state holds an answer to the survey, an approval where it
  /// holds it completed, a move where it holds it (else it is put back). Run again after a crash,
  /// it settles the same way; how many there were.
  func settleEarlierJournals(in data: URL, users: UserStates) async throws -> Int {
    let folder = data.appendingPathComponent("responses-pending")
    guard FileManager.default.fileExists(atPath: folder.path) else { return 0 }
    struct Marker: Decodable {
      var response: SurveyResponse?
      var replaces: String?
      var approves: PointAmount?
    }
    var pending: [String: Data] = [:]
    for journal in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !journal.hasPrefix(".") {
      let segments = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(journal).path)
        .compactMap { $0.hasPrefix("journal-") ? Int($0.dropFirst(8)) : nil }.sorted()
      for segment in segments {
        let bytes = try DurableFile.read(folder.appendingPathComponent("\(journal)/journal-\(segment)").path) ?? Data()
        // Frames: kind (1 written, 0 deleted), version (8 bytes), the name's and the data's
        // lengths (4 each), the name, the data, a checksum (8); the first one cut short ends it.
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 25 {
          let (nameCount, dataCount) = (Int(bytes.littleEndian(UInt32.self, at: offset + 9)), Int(bytes.littleEndian(UInt32.self, at: offset + 13)))
          let end = offset + 17 + nameCount + dataCount
          guard end + 8 <= bytes.endIndex, CommitLog.checksum(Data(bytes[offset..<end])) == bytes.littleEndian(UInt64.self, at: end) else { break }
          let name = String(decoding: bytes[(offset + 17)..<(offset + 17 + nameCount)], as: UTF8.self)
          pending[name] = bytes[offset] == 1 ? Data(bytes[(offset + 17 + nameCount)..<end]) : nil
          offset = end + 8
        }
      }
    }
    let markers = try pending.compactMap { name, bytes -> (UserID, Key, Marker)? in
      guard let tilde = name.firstIndex(of: "~"), let user = UserID(name[..<tilde]),
        let key = Key(recordName: String(name[name.index(after: tilde)...]))
      else { return nil }
      return (user, key, try SavedJSON.decode(Marker.self, from: bytes))
    }
    for (user, settled) in Dictionary(grouping: markers, by: \.0) {
      try await users.update(user) { data in
        let state = try await UserFiles.load(data, of: user, surveys: settled.map(\.1.survey), from: users, cache: SavedStateCache())
        for (_, key, marker) in settled {
          let answer = state.progress.answer(to: key.survey)
          if let response = marker.response, answer != nil { try await record([response]) }
          if let paid = marker.approves, answer?.isCompleted == true { try await approve([(key, paid)]) }
          if let replaced = marker.replaces.flatMap(Key.init(recordName:)) {
            // Kept: under the new name, whether or not the crash came before it was written.
            try await move(answer != nil ? [(replaced, key)] : [(key, replaced)])
          }
        }
        return (nil, ())
      }
    }
    try FileManager.default.removeItem(at: folder)
    return markers.count
  }
}
