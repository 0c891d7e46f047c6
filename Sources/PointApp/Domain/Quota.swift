import Foundation

/// How many completed answers a survey takes, shared by everyone who answers it: when they are in,
/// it closes for everyone.
public struct Quota: Codable, Equatable, Sendable {
  /// The completes the survey's client wants in all.
  public let target: Int
  /// Those collected before this site's count began (the panel's other channels): the catalog says.
  public let collected: Int

  public init(target: Int, collected: Int = 0) {
    self.target = target
    self.collected = collected
  }

  /// The places this site can give.
  public var places: Int { max(0, target - collected) }

  /// Places left when `taken` of this site's are taken.
  public func remaining(taken: Int) -> Int { max(0, places - taken) }

  /// Whether `remaining` places count as few (残りわずか): a tenth of the target or less, at most
  /// 50, at least 1.
  public func isNearlyFull(remaining: Int) -> Bool {
    remaining > 0 && remaining <= max(1, min(target / 10, 50))
  }
}

extension Survey {
  /// Why a published survey takes no more answers (受付終了).
  public enum Closure: String, Equatable, Sendable {
    /// Its quota of completes is in.
    case full
    /// Its deadline has passed.
    case deadlinePassed
  }

  /// Why it takes no more answers at `date`, if it does not; its deadline first.
  public func closure(at date: Date) -> Closure? {
    if let expiresAt, date >= expiresAt { return .deadlinePassed }
    if remainingPlaces == 0 { return .full }
    if let cells, !cells.cells.isEmpty, cells.cells.allSatisfy(isFull) { return .full }
    return nil
  }

  /// Its places not taken yet, as last counted; `nil`: it has no quota.
  public var remainingPlaces: Int? { quota?.remaining(taken: placesTaken) }

  /// Few places left (残りわずか), and not none.
  public var isNearlyFull: Bool {
    guard let quota, let remainingPlaces else { return false }
    return quota.isNearlyFull(remaining: remainingPlaces)
  }

  /// The survey with `taken` of its places counted as taken, and `cells` of its cells'.
  public func counting(taken: Int, cells: [String: Int] = [:]) -> Survey {
    var survey = self
    survey.placesTaken = taken
    survey.cellsTaken = cells
    return survey
  }

  /// Whether `cell`'s places were all taken, as last counted.
  public func isFull(_ cell: QuotaCells.Cell) -> Bool {
    (cellsTaken[cell.name] ?? 0) >= cell.limit
  }
}
