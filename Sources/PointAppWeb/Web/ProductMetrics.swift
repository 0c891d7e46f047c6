import Foundation
import Metrics
import PointApp
import Synchronization

/// The product's own figures, beside Hummingbird's requests by route and status
/// (`MetricsMiddleware`): in Prometheus's registry with `--metrics-port`, nowhere otherwise.
///
/// Awards are counted from what a request saved, once its save succeeded: a figure never counts
/// a payment that a failed write took back.
struct ProductMetrics: Sendable {
  let answersAccepted: Counter
  let missionClaims: Counter
  let exchanges: Counter
  let pointsIssuedForAnswers: Counter
  let pointsIssuedForMissions: Counter
  let pointsIssuedForProfiles: Counter
  let pointsIssuedForScreenings: Counter
  let pointsExchanged: Counter
  let pointsIssuedForRanks: Counter
  let pointsExpired: Counter
  let pointsRefunded: Counter
  let pointsAdjusted: Counter
  let storeReads: Metrics.Timer
  /// An update's own time: waiting for the user's lock, reading and saving; not the request's work.
  let storeUpdates: Metrics.Timer
  let deadlineOverruns: Counter
  let serverErrors: Counter
  /// Exchange requests waiting for their code (申請中), and the seconds the oldest has waited:
  /// counted every 15 s from the queue, by every instance (each sees the same queue).
  let exchangesWaiting: Gauge
  let oldestExchangeWaiting: Gauge

  init(factory: any MetricsFactory) {
    answersAccepted = Counter(label: "pointapp_answers_accepted", factory: factory)
    missionClaims = Counter(label: "pointapp_mission_claims", factory: factory)
    exchanges = Counter(label: "pointapp_exchanges", factory: factory)
    pointsIssuedForAnswers = Counter(label: "pointapp_points_issued", dimensions: [("reason", "survey")], factory: factory)
    pointsIssuedForMissions = Counter(label: "pointapp_points_issued", dimensions: [("reason", "mission")], factory: factory)
    pointsIssuedForProfiles = Counter(label: "pointapp_points_issued", dimensions: [("reason", "profile")], factory: factory)
    pointsIssuedForScreenings = Counter(label: "pointapp_points_issued", dimensions: [("reason", "consolation")], factory: factory)
    pointsExchanged = Counter(label: "pointapp_points_exchanged", factory: factory)
    pointsIssuedForRanks = Counter(label: "pointapp_points_issued", dimensions: [("reason", "rank")], factory: factory)
    pointsExpired = Counter(label: "pointapp_points_expired", factory: factory)
    pointsRefunded = Counter(label: "pointapp_points_refunded", factory: factory)
    pointsAdjusted = Counter(label: "pointapp_points_adjusted", factory: factory)
    storeReads = Metrics.Timer(label: "pointapp_store_read_seconds", factory: factory)
    storeUpdates = Metrics.Timer(label: "pointapp_store_update_seconds", factory: factory)
    deadlineOverruns = Counter(label: "pointapp_effect_deadline_overruns", factory: factory)
    serverErrors = Counter(label: "pointapp_responses_5xx", factory: factory)
    exchangesWaiting = Gauge(label: "pointapp_exchanges_waiting", factory: factory)
    oldestExchangeWaiting = Gauge(label: "pointapp_exchange_oldest_waiting_seconds", factory: factory)
  }

  /// Counts the ledger movements that `after` holds and `before` did not: one request's, saved.
  func recordSaved(from before: PointLedger, to after: PointLedger) {
    let known = Set(before.recent.map(\.id))
    for movement in after.recent where !known.contains(movement.id) {
      switch movement.reason {
      case .surveyReward:
        answersAccepted.increment()
        pointsIssuedForAnswers.increment(by: movement.amount.value)
      case .missionBonus:
        missionClaims.increment()
        pointsIssuedForMissions.increment(by: movement.amount.value)
      case .profileBonus:
        pointsIssuedForProfiles.increment(by: movement.amount.value)
      case .screeningConsolation:
        pointsIssuedForScreenings.increment(by: movement.amount.value)
      case .exchange, .exchangeHold:
        exchanges.increment()
        pointsExchanged.increment(by: movement.amount.value)
      case .rankBonus:
        pointsIssuedForRanks.increment(by: movement.amount.value)
      case .expiry:
        pointsExpired.increment(by: movement.amount.value)
      case .exchangeRefund:
        pointsRefunded.increment(by: movement.amount.value)
      case .adjustmentCredit, .adjustmentDebit:
        pointsAdjusted.increment(by: movement.amount.value)
      }
    }
  }
}
