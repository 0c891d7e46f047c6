import Foundation
import PointApp

/// How a user's state maps to records: the state (bounded), and archive records for what
/// `UserProgress.takeArchivable()` moves out: ledger segments, segments of exchange requests and
/// old answers, one record each, so that a request reads only the ones it needs.
enum UserFiles {
  static func segmentName(_ start: Int) -> String { "ledger-\(start)" }
  static func exchangesName(_ start: Int) -> String { "exchanges-\(start)" }

  /// Survey ids are catalog data; hex keeps any of them a plain file name.
  static func answerName(_ survey: SurveyID) -> String {
    "answer-\(hex(survey.rawValue.utf8))"
  }

  /// What to save for `state`, and the state as saved: history is archived first when there is
  /// enough of it.
  static func save(_ state: AppFeature.State) throws -> (save: UserSave, saved: AppFeature.State) {
    var saved = state
    let (segments, answers, exchanges) = saved.progress.takeArchivable()
    var archive: [String: Data] = [:]
    for segment in segments {
      archive[segmentName(segment.start)] = try SavedJSON.encode(segment)
    }
    for segment in exchanges {
      archive[exchangesName(segment.start)] = try SavedJSON.encode(segment)
    }
    for (survey, answer) in answers {
      archive[answerName(survey)] = try SavedJSON.encode(answer)
    }
    return (UserSave(archive: archive, state: SavedState.data(for: saved)), saved)
  }

  /// Reads a saved state (`nil`: a new user) with the archived answers to `surveys`, the ones a
  /// request may show or answer. A user who has archived no answer costs no archive read; a user
  /// whose file has not changed since `cache` saw it costs no decoding either.
  static func load(
    _ data: Data?, of user: UserID, surveys: [SurveyID], from store: UserStates, cache: SavedStateCache
  ) async throws -> AppFeature.State {
    guard let data else { return AppFeature.State() }
    if let state = cache.state(of: user, bytes: data, surveys: surveys) { return state }
    var state = try SavedState.state(from: data)
    let progress = state.progress
    if progress.answeredCount > progress.answered.count {
      let wanted = surveys.filter { progress.answered[$0] == nil }
      let files = try await store.archived(wanted.map(answerName), of: user)
      for survey in wanted {
        if let file = files[answerName(survey)] {
          state.progress.archivedAnswers[survey] = try SavedJSON.decode(UserProgress.AnsweredSurvey.self, from: file)
        }
      }
    }
    cache.remember(user, bytes: data, state: state, surveys: surveys)
    return state
  }

  /// Everything a user did, archived parts included: what a login takes into an account. The
  /// archived answers are found by the surveys the ledger paid for.
  static func history(of user: UserID, in store: UserStates) async throws -> GuestHistory {
    guard let data = try await store.read(user) else {
      return GuestHistory(answers: [:], movements: [], missions: MissionBoard(), streak: Streak(), achievements: [:])
    }
    let progress = try SavedState.state(from: data).progress
    var movements: [PointTransaction] = []
    let archive = ledgerArchive(of: user, in: store)
    for start in stride(from: 0, to: progress.ledger.archivedCount, by: PointLedger.segmentSize) {
      movements += try await archive.segment(start).transactions
    }
    movements += progress.ledger.recent
    var answers = progress.answered
    let archived = Set(movements.compactMap { movement -> SurveyID? in
      switch movement.reason {
      case let .surveyReward(survey), let .screeningConsolation(survey): return answers[survey] == nil ? survey : nil
      default: return nil
      }
    })
    let files = try await store.archived(archived.map(answerName), of: user)
    for survey in archived {
      if let file = files[answerName(survey)] {
        answers[survey] = try SavedJSON.decode(UserProgress.AnsweredSurvey.self, from: file)
      }
    }
    return GuestHistory(
      answers: answers, movements: movements, missions: progress.missions, streak: progress.streak, achievements: progress.achievements,
      profile: progress.profile
    )
  }

  /// The user's ledger archive, each segment checked against what the state expects of it.
  static func ledgerArchive(of user: UserID, in store: UserStates) -> LedgerArchiveClient {
    @Sendable func file(_ name: String) async throws -> Data {
      guard let data = try await store.archived([name], of: user)[name] else {
        throw LedgerArchiveError(reason: "\(name) is missing")
      }
      return data
    }
    return LedgerArchiveClient { start in
      let name = segmentName(start)
      let segment = try SavedJSON.decode(LedgerSegment.self, from: try await file(name))
      guard segment.start == start, segment.transactions.count == PointLedger.segmentSize else {
        throw LedgerArchiveError(reason: "\(name) does not hold movements \(start)..<\(start + PointLedger.segmentSize)")
      }
      return segment
    } exchanges: { start in
      let name = exchangesName(start)
      let segment = try SavedJSON.decode(ExchangeSegment.self, from: try await file(name))
      let size = UserProgress.exchangeSegmentSize
      guard segment.start == start, segment.requests.map(\.number) == Array(start + 1...start + size) else {
        throw LedgerArchiveError(reason: "\(name) does not hold requests \(start + 1)...\(start + size)")
      }
      return segment
    }
  }
}

extension UserStates {
  /// Saves `state` as a user's whole state, archiving its history as a request's save would: for
  /// seeding a user (benchmarks, tests).
  public func replace(_ user: UserID, with state: AppFeature.State) async throws {
    try await update(user) { _ in (try UserFiles.save(state).save, ()) }
  }
}
