import Foundation
import PointApp
import PostgresNIO

/// Copies a file store's data folder into PostgreSQL (`pointapp import-files`): users with their
/// archives and their places in surveys' quotas, sessions, accounts, surveys' responses and the
/// session secret, so that cookies stay valid.
///
/// Each user is copied in one transaction, under the user's lock, and only if the database has
/// no state for them: a second run imports nothing twice, an interrupted run can be run again,
/// and a user who has changed in the database since is left as they are. Every imported user's
/// balance is then checked against their ledger as the database holds it.
public enum FileImport {
  public struct Report: Sendable, Equatable {
    public var users = 0
    public var archiveFiles = 0
    /// Places in surveys' quotas, moved with their users.
    public var quotaPlaces = 0
    /// Users the database had already (an earlier run, or a change since).
    public var usersPresent = 0
    public var sessions = 0
    public var accounts = 0
    /// The survey catalog: 1 when the folder's was copied.
    public var catalogs = 0
    /// The built-in issuer's records (codes and the requests they were issued for), and the
    /// exchange requests left pending, which the database's instances take up.
    public var giftCodeRecords = 0
    public var pendingExchanges = 0
    /// The support desk's adjustments as asked (each form's id kept) and operators' day counts.
    public var adjustments = 0
    /// Surveys' responses, and their counts.
    public var responses = 0
    /// Messages waiting to be delivered.
    public var mail = 0
    /// Users whose balance is not the sum of their ledger's movements, with why.
    public var mismatches: [String] = []
    /// Users whose ledger was checked.
    public var checked = 0
  }

  public static func run(from data: URL, into database: Database, progress: @Sendable (String) -> Void = { _ in }) async throws -> Report {
    var report = Report()
    // The folder as its server would find it at start: earlier shapes moved into records.
    let files = try FileBackend(data), rows = PostgresBackend(database)
    let fileResponses = ResponseStore(files.table(.responses))
    _ = try await fileResponses.settleEarlierJournals(in: data, users: UserStates(files))
    // Each survey's counts with those its processes kept apart: the database keeps them whole.
    _ = try await fileResponses.foldFinishedShards(in: files)
    let store = UserStates(rows)
    let (fileArchive, fileQuotas) = (files.table(.archive), files.table(.quotas))
    // Each holder's places, which move with them, counted in the survey's quota there.
    var places: [String: [String]] = [:]
    for name in try await fileQuotas.allNames() {
      guard let place = RecordName(name).after("p~"), let tilde = place.lastIndex(of: "~") else { continue }
      places[String(place[place.index(after: tilde)...]), default: []].append(String(place[..<tilde]))
    }
    let users = try await files.table(.users).allNames().compactMap(UserID.init(recordName:))
    let quotas = Quotas(rows)
    for (index, user) in users.enumerated() {
      guard let (state, _) = try await files.table(.users).read(user.rawValue) else { continue }
      let prefix = user.rawValue + "~"
      let archive = Dictionary(
        uniqueKeysWithValues: try await fileArchive.records(prefixed: prefix, after: nil, limit: .max).map { (String($0.name.dropFirst(prefix.count)), $0.data) }
      )
      let held = places[user.rawValue] ?? []
      let imported = try await store.update(user) { saved in
        guard saved == nil else { return (nil, false) }
        for survey in held {
          _ = try await quotas.claim(SurveyID(survey), places: .max, for: user)  // the folder counted it
        }
        return (UserSave(archive: archive, state: state), true)
      }
      if imported {
        report.users += 1
        report.archiveFiles += archive.count
        report.quotaPlaces += held.count
      } else {
        report.usersPresent += 1
      }
      if let mismatch = try await check(user, in: store) {
        report.mismatches.append("\(user.rawValue): \(mismatch)")
      }
      report.checked += 1
      if (index + 1) % 1_000 == 0 { progress("\(index + 1) of \(users.count) users") }
    }
    let copy = { (kind: RecordKind, named: (String) -> Bool) in try await copyRecords(files.table(kind), into: rows.table(kind), where: named) }
    let sessionIDs = { (name: String) in RandomID<SessionKind>(name) != nil }
    report.sessions = try await copy(.sessions, sessionIDs)
    report.accounts = try await copy(.accounts, sessionIDs)
    // The catalog as the folder's server had it (seeded there, maybe edited since), unless the
    // database has one; the built-in issuer's records, exchanges pending, adjustments.
    report.catalogs = try await copy(.catalog) { _ in true }
    report.giftCodeRecords = try await copy(.giftCodes) { _ in true }
    report.pendingExchanges = try await copy(.exchangeQueue) { _ in true }
    report.adjustments = try await copy(.adjustments) { _ in true }
    report.responses = try await copy(.responses) { _ in true }
    // Mail still to go, and what became of the rest.
    report.mail = try await copy(.mailQueue) { _ in true }
    _ = try await copy(.mailLog) { _ in true }
    _ = try await copy(.noticeRuns) { _ in true }
    _ = try await copy(.settings) { _ in true }
    return report
  }

  /// Why the user's balance is not their ledger's sum as the database holds it (`nil`: it is).
  static func check(_ user: UserID, in store: UserStates) async throws -> String? {
    guard let data = try await store.read(user) else { return "no state in the database" }
    let ledger = try SavedState.state(from: data).progress.ledger
    let history: GuestHistory
    do {
      history = try await UserFiles.history(of: user, in: store)
    } catch {
      return "its ledger archive cannot be read (\(error))"
    }
    let sum = history.movements.reduce(0) { sum, movement in
      movement.reason.isCredit ? sum + movement.amount.value : sum - movement.amount.value
    }
    guard history.movements.count == ledger.count else {
      return "the ledger counts \(ledger.count) movements, the database holds \(history.movements.count)"
    }
    guard sum == ledger.balance.value else { return "balance \(ledger.balance.value) pt, movements sum to \(sum) pt" }
    return nil
  }

  /// Copies each record `named` picks unless the table has its id; returns how many.
  private static func copyRecords(_ files: any RecordStorage, into rows: any RecordStorage, where named: (String) -> Bool) async throws -> Int {
    var copied = 0
    for name in try await files.allNames() where named(name) {
      if let (data, _) = try await files.read(name), try await rows.create(name, data) { copied += 1 }
    }
    return copied
  }
}
