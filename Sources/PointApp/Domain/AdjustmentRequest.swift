import Dependencies
import Foundation

/// An adjustment of a user's points asked at the support desk, kept under the form's id for good:
/// a form sent again, however much later, finds it and adjusts nothing. A small one is applied at
/// once; a large one, or one that takes its operator past the day's limit, waits for a second
/// operator (a 管理者 or サポート, not the one who asked) before it reaches the user.
public struct AdjustmentRequest: Codable, Equatable, Sendable, Identifiable {
  /// The form's id, which is also the movement's in the user's ledger.
  public var id: TransactionID
  public var user: String
  public var points: Int
  public var reason: String
  public var requestedBy: String
  public var requestedAt: Date
  public var status: Status

  public enum Status: Codable, Equatable, Sendable {
    case waiting
    /// Taken up by `by` (or, with no approval needed, by the one who asked), being applied.
    case approved(by: String, at: Date)
    /// In the user's ledger.
    case applied(by: String, at: Date)
    case refused(by: String, at: Date)
    /// Approved, but the user's balance could not take it.
    case failed(SupportError, by: String, at: Date)
  }

  public init(id: TransactionID, user: String, points: Int, reason: String, requestedBy: String, requestedAt: Date, status: Status = .waiting) {
    self.id = id
    self.user = user
    self.points = points
    self.reason = reason
    self.requestedBy = requestedBy
    self.requestedAt = requestedAt
    self.status = status
  }

  /// Whether it still waits for a decision (or was approved and not yet applied: a stop between
  /// the two, which approving again finishes).
  public var isOpen: Bool {
    switch status {
    case .waiting, .approved: true
    case .applied, .refused, .failed: false
    }
  }
}

/// When an adjustment waits for a second operator: above `singleLimit` points (either way), or
/// when it would take what its operator adjusted alone that day (JST, counted either way) past
/// `dailyLimit`. What a second operator approved does not count against the day.
public struct AdjustmentPolicy: Equatable, Sendable {
  public var singleLimit: Int
  public var dailyLimit: Int

  public init(singleLimit: Int = 10_000, dailyLimit: Int = 50_000) {
    self.singleLimit = singleLimit
    self.dailyLimit = dailyLimit
  }

  /// Whether `points` may be applied by one operator, as far as its own size goes (the day's
  /// limit is counted as it is kept: `SupportDeskClient.openAdjustment`).
  public func allowsAlone(_ points: Int) -> Bool {
    points.magnitude <= singleLimit.magnitude
  }

  /// Whether an operator who adjusted `dayTotal` alone today may adjust `points` more alone.
  public func allowsAlone(_ points: Int, after dayTotal: Int) -> Bool {
    allowsAlone(points) && dayTotal + Int(points.magnitude) <= dailyLimit
  }
}

extension AdjustmentPolicy: DependencyKey {
  public static let liveValue = AdjustmentPolicy()
  public static let testValue = AdjustmentPolicy()
}

extension DependencyValues {
  public var adjustmentPolicy: AdjustmentPolicy {
    get { self[AdjustmentPolicy.self] }
    set { self[AdjustmentPolicy.self] = newValue }
  }
}
