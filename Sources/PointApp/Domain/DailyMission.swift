/// A goal of the day that pays a bonus once it is reached and claimed.
public struct DailyMission: Equatable, Sendable {
  public let kind: Kind
  public let progress: Int
  public let isClaimed: Bool

  public var isCompleted: Bool { progress >= kind.target }
  public var isClaimable: Bool { isCompleted && !isClaimed }

  public enum Kind: String, Codable, CaseIterable, Sendable {
    case visit, answerOne, answerThree, earn100

    public var title: String {
      switch self {
      case .visit: "今日ログインする"
      case .answerOne: "アンケートに1件回答する"
      case .answerThree: "アンケートに3件回答する"
      case .earn100: "アンケートで100pt獲得する"
      }
    }

    /// The count (visits, answers or points) that completes the mission.
    public var target: Int {
      switch self {
      case .visit, .answerOne: 1
      case .answerThree: 3
      case .earn100: 100
      }
    }

    public var bonus: PointAmount {
      switch self {
      case .visit: 5
      case .answerOne: 10
      case .answerThree: 30
      case .earn100: 20
      }
    }
  }
}

/// Today's mission counters. They start again at the first activity of a new day.
public struct MissionBoard: Codable, Equatable, Sendable {
  public private(set) var day: Day?
  public private(set) var visited = false
  public private(set) var surveysAnswered = 0
  public private(set) var pointsEarned = 0
  public private(set) var claimed: Set<DailyMission.Kind> = []

  public init() {}

  /// The missions as they stand on `today`.
  public func missions(on today: Day) -> [DailyMission] {
    let board = day == today ? self : MissionBoard()
    return DailyMission.Kind.allCases.map { kind in
      DailyMission(kind: kind, progress: board.progress(of: kind), isClaimed: board.claimed.contains(kind))
    }
  }

  mutating func recordVisit(on today: Day) {
    rollOver(to: today)
    visited = true
  }

  mutating func recordAnswer(earning reward: PointAmount, on today: Day) {
    rollOver(to: today)
    surveysAnswered += 1
    pointsEarned += reward.value
  }

  /// Marks a completed mission as paid; a mission pays once per day.
  /// A refused claim changes nothing.
  mutating func claim(_ kind: DailyMission.Kind, on today: Day) throws(PointError) {
    var board = self
    board.rollOver(to: today)
    guard board.progress(of: kind) >= kind.target else { throw .missionNotCompleted }
    guard board.claimed.insert(kind).inserted else { throw .missionAlreadyClaimed }
    self = board
  }

  /// Marks `kind` as paid today without looking at progress, for a bonus paid elsewhere (a
  /// guest's). `false` when it was already paid today: then the other payment is one too many.
  mutating func recordClaim(_ kind: DailyMission.Kind, on today: Day) -> Bool {
    rollOver(to: today)
    return claimed.insert(kind).inserted
  }

  private func progress(of kind: DailyMission.Kind) -> Int {
    switch kind {
    case .visit: visited ? 1 : 0
    case .answerOne, .answerThree: surveysAnswered
    case .earn100: pointsEarned
    }
  }

  private mutating func rollOver(to today: Day) {
    if day != today { self = MissionBoard(); day = today }
  }
}

extension MissionBoard {
  private enum CodingKeys: String, CodingKey {
    case day, visited, surveysAnswered, pointsEarned, claimed
  }

  /// Writes `claimed` in the order of `DailyMission.Kind.allCases`: a set's own order changes from
  /// one run to the next, and a saved value must always give the same bytes.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(day, forKey: .day)
    try container.encode(visited, forKey: .visited)
    try container.encode(surveysAnswered, forKey: .surveysAnswered)
    try container.encode(pointsEarned, forKey: .pointsEarned)
    try container.encode(DailyMission.Kind.allCases.filter(claimed.contains), forKey: .claimed)
  }
}
