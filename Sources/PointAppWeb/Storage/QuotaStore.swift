import Foundation
import NIOPosix
import PointApp
import Synchronization

/// One user's place in one survey's quota.
public struct QuotaPlace: Hashable, Sendable {
  public let survey: SurveyID
  public let user: UserID

  public init(_ survey: SurveyID, _ user: UserID) {
    self.survey = survey
    self.user = user
  }
}

/// Surveys' quotas: the places users take, shared by every request and instance. A survey never
/// gives more places than it has, however many users claim one at once.
///
/// A place is claimed during the user's update, before the answer it is for is saved; it must not
/// outlive an answer that was never saved, nor be lost with one that was. A store whose places
/// commit with the user's update (`placesCommitWithUpdate`: PostgreSQL, in the same transaction)
/// needs nothing more. The others hold a place open until it is settled: kept once the answer is
/// saved, released when it is not; places left open by a crash are settled at start-up from the
/// users' saved states (`settleOpenPlaces(from:)`).
public protocol QuotaStore: Sendable {
  /// Takes one of `places` places of `survey` for `user`, unless all are taken (`false`). A user
  /// who holds one keeps it (`true`) and takes no second one.
  func claim(_ survey: SurveyID, places: Int, for user: UserID) async throws -> Bool

  /// Ends an open place: kept (`keep`), or given back for someone else.
  func settle(_ place: QuotaPlace, keep: Bool) async throws

  /// The places claimed and not settled (after a crash; none while no request runs).
  func unsettled() async throws -> [QuotaPlace]

  /// The places taken, open ones included, by survey (surveys with none may be left out).
  func taken() async throws -> [SurveyID: Int]

  /// Whether a place commits, and rolls back, with the update of the user who claims it.
  var placesCommitWithUpdate: Bool { get }
}

/// Quotas in memory, for tests.
public final class InMemoryQuotaStore: QuotaStore {
  /// Each survey's places, `true` where settled.
  private let places = Mutex<[SurveyID: [UserID: Bool]]>([:])

  public init() {}

  public var placesCommitWithUpdate: Bool { false }

  public func claim(_ survey: SurveyID, places limit: Int, for user: UserID) async throws -> Bool {
    places.withLock { places in
      let holders = places[survey, default: [:]]
      if holders[user] != nil { return true }
      guard holders.count < limit else { return false }
      places[survey, default: [:]][user] = false
      return true
    }
  }

  public func settle(_ place: QuotaPlace, keep: Bool) async throws {
    places.withLock { places in
      guard places[place.survey]?[place.user] == false else { return }
      places[place.survey]?[place.user] = keep ? true : nil
    }
  }

  public func unsettled() async throws -> [QuotaPlace] {
    places.withLock { places in
      places.flatMap { survey, holders in holders.filter { !$0.value }.map { QuotaPlace(survey, $0.key) } }
    }
  }

  public func taken() async throws -> [SurveyID: Int] {
    places.withLock { $0.mapValues(\.count) }
  }
}

/// Quotas as files: a folder per survey under `directory` with a file per place,
/// `<user>.open` while open, `<user>.kept` once kept. A claim counts the folder's files and writes
/// its own durably under the survey's lock (this process's, and a `flock` on `<survey>.lock` for
/// processes sharing the folder), so a survey never gives more places than it has.
///
/// `taken()` is answered from memory: the counts of this process's last look at each folder.
public final class JSONFileQuotaStore: QuotaStore {
  private let folder: String
  private let locks = KeyedMutex<SurveyID>()
  private let threadPool: NIOThreadPool
  private let counts = Mutex<[SurveyID: Int]>([:])

  /// Creates the folder if it is missing, removes the temporary files of writes a crash
  /// interrupted, and counts the places in it.
  public init(directory: URL, threadPool: NIOThreadPool = JSONFileUserStateStore.fileThreads) throws {
    folder = directory.path
    self.threadPool = threadPool
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var counts: [SurveyID: Int] = [:]
    for survey in try Self.surveys(in: folder) {
      try DurableFile.removeAbandonedTemporaries(in: "\(folder)/\(survey.rawValue)")
      counts[survey] = try Self.holders(in: "\(folder)/\(survey.rawValue)").count
    }
    self.counts.withLock { $0 = counts }
  }

  public var placesCommitWithUpdate: Bool { false }

  public func claim(_ survey: SurveyID, places limit: Int, for user: UserID) async throws -> Bool {
    let surveyFolder = try path(of: survey)
    return try await locks.withLock(survey) {
      try await threadPool.runIfActive { [folder] in
        let lock = try FileLock(path: "\(folder)/\(survey.rawValue).lock")
        defer { lock.unlock() }
        try DurableFile.makeFolder(surveyFolder)
        let holders = try Self.holders(in: surveyFolder)
        self.counts.withLock { $0[survey] = holders.count }
        if holders.contains(user.rawValue) { return true }
        guard holders.count < limit else { return false }
        // Durable before the answer it is for can be saved: a crash after that leaves it to settle.
        try DurableFile.write(Data(), to: "\(surveyFolder)/\(user.rawValue).open")
        self.counts.withLock { $0[survey] = holders.count + 1 }
        return true
      }
    }
  }

  public func settle(_ place: QuotaPlace, keep: Bool) async throws {
    let surveyFolder = try path(of: place.survey)
    try await locks.withLock(place.survey) {
      try await threadPool.runIfActive { [folder] in
        let lock = try FileLock(path: "\(folder)/\(place.survey.rawValue).lock")
        defer { lock.unlock() }
        let open = "\(surveyFolder)/\(place.user.rawValue).open"
        if keep {
          guard rename(open, "\(surveyFolder)/\(place.user.rawValue).kept") == 0 || errno == ENOENT else {
            throw FileError("rename", open)
          }
        } else {
          guard unlink(open) == 0 || errno == ENOENT else { throw FileError("unlink", open) }
        }
        try DurableFile.syncFolder(surveyFolder)
        let count = try Self.holders(in: surveyFolder).count
        self.counts.withLock { $0[place.survey] = count }
      }
    }
  }

  public func unsettled() async throws -> [QuotaPlace] {
    try await threadPool.runIfActive { [folder] in
      try Self.surveys(in: folder).flatMap { survey in
        try FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(survey.rawValue)")
          .filter { $0.hasSuffix(".open") }
          .compactMap { UserID($0.dropLast(".open".count)).map { QuotaPlace(survey, $0) } }
      }
    }
  }

  public func taken() async throws -> [SurveyID: Int] {
    counts.withLock { $0 }
  }

  /// The places kept, for moving them elsewhere (`FileImport`).
  func keptPlaces() throws -> [QuotaPlace] {
    try Self.surveys(in: folder).flatMap { survey in
      try FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(survey.rawValue)")
        .filter { $0.hasSuffix(".kept") }
        .compactMap { UserID($0.dropLast(".kept".count)).map { QuotaPlace(survey, $0) } }
    }
  }

  /// A survey's folder. Ids come from the catalog; one that could leave the folder is refused.
  private func path(of survey: SurveyID) throws -> String {
    guard Self.isPlainName(survey.rawValue) else { throw FileError("survey id unfit for a file name", survey.rawValue, code: EINVAL) }
    return "\(folder)/\(survey.rawValue)"
  }

  private static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
  }

  private static func surveys(in folder: String) throws -> [SurveyID] {
    var isFolder: ObjCBool = false
    return try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
      isPlainName(name) && FileManager.default.fileExists(atPath: "\(folder)/\(name)", isDirectory: &isFolder) && isFolder.boolValue
    }.map { SurveyID($0) }
  }

  /// The users holding a place in a survey's folder, open or kept.
  private static func holders(in surveyFolder: String) throws -> Set<String> {
    guard FileManager.default.fileExists(atPath: surveyFolder) else { return [] }
    return Set(try FileManager.default.contentsOfDirectory(atPath: surveyFolder).compactMap { name in
      guard !name.hasPrefix(".") else { return nil }  // a write's temporary file
      if name.hasSuffix(".open") { return String(name.dropLast(5)) }
      if name.hasSuffix(".kept") { return String(name.dropLast(5)) }
      return nil
    })
  }
}

extension QuotaStore {
  /// Settles `user`'s open places in `surveys` from the user's saved state, under the user's lock
  /// (no update of theirs runs meanwhile): kept where it holds a completed answer to the survey,
  /// given back where it does not. For an update that failed, and for places a crash left open.
  func settle(_ surveys: [SurveyID], of user: UserID, from users: any UserStateStore) async throws {
    guard !placesCommitWithUpdate, !surveys.isEmpty else { return }
    try await users.update(user) { data in
      let state = try await UserFiles.load(data, of: user, surveys: surveys, from: users, cache: SavedStateCache())
      for survey in surveys {
        try await settle(QuotaPlace(survey, user), keep: state.progress.answer(to: survey)?.isCompleted == true)
      }
      return (nil, ())
    }
  }

  /// Settles every place a crash left open (at start-up, before requests are served).
  func settleOpenPlaces(from users: any UserStateStore) async throws -> Int {
    let open = try await unsettled()
    for (user, places) in Dictionary(grouping: open, by: \.user) {
      try await settle(places.map(\.survey), of: user, from: users)
    }
    return open.count
  }
}

/// The places one request claimed, for settling once its update is over.
final class ClaimedPlaces: Sendable {
  private let surveys = Mutex<[SurveyID]>([])

  var all: [SurveyID] { surveys.withLock { $0 } }

  /// The client that claims places for `user` in `store`, noting each.
  func client(for user: UserID, in store: any QuotaStore) -> QuotaClient {
    QuotaClient(claim: { [self] survey, places in
      let claimed = try await store.claim(survey, places: places, for: user)
      if claimed { surveys.withLock { $0.append(survey) } }
      return claimed
    })
  }
}

extension SurveyClient {
  /// The catalog with each quota's places taken counted from `quotas`, as a research panel's
  /// survey feed reports them.
  func counting(_ quotas: any QuotaStore) -> SurveyClient {
    @Sendable func counted(_ surveys: [Survey]) async throws -> [Survey] {
      guard surveys.contains(where: { $0.quota != nil }) else { return surveys }
      let taken = try await quotas.taken()
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
