import Foundation
import PointApp

/// The support desk's adjustments as asked (`AdjustmentRequest`), each under its form's id for
/// good (`r-<id>`), and each operator's adjustments of a day counted (`t-<operator>-<day>`), in
/// the record layer (`data/adjustments/`, the `adjustments` table, or memory). Every change is a
/// compare-and-swap of its record: of two decisions at once, one is taken.
struct AdjustmentStore: Sendable {
  static func requestName(_ id: TransactionID) -> RecordName { RecordName("r-", id.rawValue.uuidString.lowercased()) }
  static func totalName(of email: String, on day: Day) -> RecordName { RecordName("t-", "\(OperatorID(email: email).rawValue)-\(day.iso)") }

  let requests: Records<RecordName, AdjustmentRequest>
  let totals: Records<RecordName, Int>

  init(_ storage: any RecordStorage) {
    requests = Records(storage)
    totals = Records(storage)
  }

  /// Keeps `request` unless its id was sent before (`SupportError.alreadyDone`), and counts it in
  /// its operator's day when `policy` lets them make it alone; whether it did.
  func open(_ request: AdjustmentRequest, on day: Day, policy: AdjustmentPolicy) async throws -> Bool {
    guard try await requests.create(request, as: Self.requestName(request.id)) else { throw SupportError.alreadyDone }
    guard policy.allowsAlone(request.points) else { return false }
    return try await totals.modify(Self.totalName(of: request.requestedBy, on: day)) { total in
      guard policy.allowsAlone(request.points, after: total ?? 0) else { return (nil, false) }
      return ((total ?? 0) + Int(request.points.magnitude), true)
    }
  }

  func request(_ id: TransactionID) async throws -> AdjustmentRequest {
    guard let found = try await requests.read(Self.requestName(id))?.record else { throw SupportError.notWaiting }
    return found
  }

  /// Every request still open, oldest first.
  func open() async throws -> [AdjustmentRequest] {
    try await requests.all(prefixed: "r-").filter(\.isOpen).sorted { ($0.requestedAt, $0.id.rawValue.uuidString) < ($1.requestedAt, $1.id.rawValue.uuidString) }
  }

  /// Moves the request on to `status` if the move is one a request makes (waiting → approved or
  /// refused; approved → applied or failed); the request as it was, or `SupportError.notWaiting`.
  func move(_ id: TransactionID, to status: AdjustmentRequest.Status) async throws -> AdjustmentRequest {
    try await requests.modify(Self.requestName(id)) { found in
      guard var found else { throw SupportError.notWaiting }
      let before = found
      switch (found.status, status) {
      case (.waiting, .approved), (.waiting, .refused), (.approved, .applied), (.approved, .failed): break
      default: throw SupportError.notWaiting
      }
      found.status = status
      return (found, before)
    }
  }
}
