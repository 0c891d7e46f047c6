import CasePaths
import Composable
import Dependencies
import Foundation

/// The root feature: one user's whole app. Every change to a user's state goes through it.
public struct AppFeature: Reducer, Sendable {
  /// The version of the saved state this code writes; see `State.init(from:)` for migrations.
  /// Version 2 keeps the ledger bounded (running totals, newest movements, an archive) and counts
  /// answers; version 1 kept every movement and answer in the user's file.
  public static let schemaVersion = 2

  public struct State: Equatable, Sendable {
    public var schemaVersion = AppFeature.schemaVersion
    public var progress = UserProgress()
    public var flash: Flash?
    // What the pages show: built per request from the catalog and the clock, never saved.
    public var surveyListPage = SurveyList.Page()
    public var surveyDetailPage: SurveyDetail.Page?
    public var historyPage = PointHistory.Page()
    public var missionsDay: Day?

    public init() {}
  }

  @CasePathable
  public enum Action: Equatable, Sendable {
    case surveyList(SurveyList.Action)
    /// A survey's page was asked for: it is loaded into `surveyDetail`.
    case surveyOpened(SurveyID)
    case surveyDetail(SurveyDetail.Action)
    case dashboard(PointDashboard.Action)
    case history(PointHistory.Action)
    case missions(Missions.Action)
    case exchange(Exchange.Action)
    /// The flash message has been shown and is not shown again.
    case flashShown
  }

  @Dependency(\.date.now) var now
  @Dependency(\.calendar) var calendar

  public init() {}

  public var body: some ReducerOf<Self> {
    Reduce { state, action in
      if action.isPageView {
        let now = now  // one reading: the visit's time and its day agree, even at midnight
        state.progress.recordVisit(on: Day(now, in: calendar), at: now)
      }
      switch action {
      case let .surveyOpened(id):
        state.surveyDetailPage = SurveyDetail.Page(surveyID: id)
        return SurveyDetail.load(id).map(Action.surveyDetail)
      case let .surveyDetail(.delegate(.answered(survey, paid))):
        state.flash = paid
          ? Flash(.success, "「\(survey.title)」に回答しました。\(survey.reward)を獲得しました！")
          : Flash(.error, "このアンケートは回答済みです。ポイントは1回だけもらえます。")
        return .none
      case let .missions(.delegate(.claimed(kind))):
        state.flash = Flash(.success, "ミッション達成！ボーナス\(kind.bonus)を受け取りました。")
        return .none
      case let .missions(.delegate(.claimRefused(error))), let .exchange(.delegate(.exchangeRefused(error))):
        state.flash = Flash(.error, error.message)
        return .none
      case let .exchange(.delegate(.exchanged(option))):
        state.flash = Flash(.success, "\(option.title)に交換しました（\(option.cost)）。")
        return .none
      case .flashShown:
        state.flash = nil
        return .none
      case .surveyList, .surveyDetail, .dashboard, .history, .missions, .exchange:
        return .none
      }
    }
    .ifLet(\.surveyDetail, action: \.surveyDetail) { SurveyDetail() }
    Scope(state: \.surveyList, action: \.surveyList) { SurveyList() }
    Scope(state: \.dashboard, action: \.dashboard) { PointDashboard() }
    Scope(state: \.history, action: \.history) { PointHistory() }
    Scope(state: \.missions, action: \.missions) { Missions() }
    Scope(state: \.exchange, action: \.exchange) { Exchange() }
  }
}

extension AppFeature.Action {
  /// A page was looked at: a visit for the streak and today's visit mission.
  var isPageView: Bool {
    switch self {
    case .surveyList(.pageRequested), .surveyOpened, .dashboard(.pageRequested),
      .history(.pageRequested), .missions(.pageRequested), .exchange(.pageRequested):
      true
    default:
      false
    }
  }
}

// Each child feature sees the user's progress together with its own page; what it changes in the
// progress is written back to the one copy the root keeps.
extension AppFeature.State {
  public var surveyList: SurveyList.State {
    get { SurveyList.State(progress: progress, page: surveyListPage) }
    set { (progress, surveyListPage) = (newValue.progress, newValue.page) }
  }

  public var surveyDetail: SurveyDetail.State? {
    get { surveyDetailPage.map { SurveyDetail.State(progress: progress, page: $0) } }
    set {
      if let newValue { progress = newValue.progress }
      surveyDetailPage = newValue?.page
    }
  }

  public var dashboard: PointDashboard.State {
    get { PointDashboard.State(progress: progress) }
    set { progress = newValue.progress }
  }

  public var history: PointHistory.State {
    get { PointHistory.State(progress: progress, page: historyPage) }
    set { (progress, historyPage) = (newValue.progress, newValue.page) }
  }

  public var missions: Missions.State {
    get { Missions.State(progress: progress, today: missionsDay) }
    set { (progress, missionsDay) = (newValue.progress, newValue.today) }
  }

  public var exchange: Exchange.State {
    get { Exchange.State(progress: progress) }
    set { progress = newValue.progress }
  }
}

/// The saved form of a user's state: their data only (progress and flash), with the schema
/// version; pages and catalog data are never saved.
extension AppFeature.State: Codable {
  private enum CodingKeys: String, CodingKey {
    case schemaVersion, progress, flash
  }

  /// Reads a saved state. Migrations go here: read the version, then decode that version's shape
  /// and convert it. Version 1's ledger and answer count are read by `PointLedger` and
  /// `UserProgress`, which fold its movements into totals; its history is archived at its next
  /// save. A file from a newer version is refused rather than misread (and later overwritten).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .schemaVersion)
    guard (1...AppFeature.schemaVersion).contains(version) else {
      throw DecodingError.dataCorruptedError(
        forKey: .schemaVersion, in: container,
        debugDescription: "schema version \(version) is not one this program reads (1...\(AppFeature.schemaVersion))"
      )
    }
    self.init()
    progress = try container.decode(UserProgress.self, forKey: .progress)
    flash = try container.decodeIfPresent(Flash.self, forKey: .flash)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(AppFeature.schemaVersion, forKey: .schemaVersion)
    try container.encode(progress, forKey: .progress)
    try container.encodeIfPresent(flash, forKey: .flash)
  }
}

extension AppFeature.State {
  /// The bytes of a user's file: those `SavedJSON.encode(self)` gives, written faster.
  public func savedData() throws -> Data {
    SavedStateWriter.data(for: self)
  }

  /// Reads a user's file written by `savedData()`, of this or an older schema version.
  public init(savedData: Data) throws {
    self = try SavedJSON.decode(Self.self, from: savedData)
  }
}

/// How users' data is written: JSON with sorted keys and ISO 8601 dates (second precision), so
/// that the same value always gives the same bytes.
public enum SavedJSON {
  public static func encode(_ value: some Encodable) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return try encoder.encode(value)
  }

  public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: data)
  }
}
