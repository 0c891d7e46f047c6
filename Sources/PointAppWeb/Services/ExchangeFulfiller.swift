import Foundation
import Logging
import PointApp

/// Fulfils the exchange requests waiting in the queue (申請中), in every process: each due one is
/// claimed (one process at a time), its source called **outside any user's lock or transaction**
/// as the request's `nextCall` says (its code; its status after a call that said nothing; its end
/// past a day or when the desk asks), and the answer recorded in a new update of its user
/// (`Exchange`'s `.fulfilmentFinished` / `.cancellationFinished`: 交換完了 with the code, or 失敗
/// with the points given back, once). A call that says nothing puts it back, due again after a
/// backoff with jitter; the user's update notes the attempt.
struct ExchangeFulfiller: Sendable {
  let queue: ExchangeQueue
  let loop: RequestLoop
  let source: any GiftSource
  /// This process, as its claims name it.
  let process: String
  let now: @Sendable () -> Date
  let logger: Logger
  /// Longer than any call (`GiftProvider.timeout`): only a process that died leaves a claim to
  /// run out.
  var lease: TimeInterval = 120
  /// How long a form that made a request waits for its first call before it answers.
  static let firstWait = Duration.seconds(3)
  /// The wait after the `attempts`th call that said nothing.
  var backoff: @Sendable (Int) -> TimeInterval = MailSender.backoff(after:)

  /// One pass over the queue; returns how many requests ended in it. A request whose update fails
  /// (its user's file unreadable, the deadline) is logged and left for the next pass: it never
  /// holds up the others.
  @discardableResult
  func sweep() async throws -> Int {
    var ended = 0
    var cursor: String?
    while true {
      let (entries, next) = try await queue.page(after: cursor)
      for entry in entries {
        do {
          if try await fulfil(entry) { ended += 1 }
        } catch {
          logger.warning("a pending exchange could not be taken up", metadata: ["entry": "\(entry.name)", "error": "\(error)"])
        }
      }
      guard let next else { return ended }
      cursor = next
    }
  }

  /// Takes one request further if it is due; `true` once it has ended (or was never saved), when
  /// its entry leaves the queue.
  func fulfil(_ entry: ExchangeQueue.Entry) async throws -> Bool {
    let start = now()
    guard let waiting = try await queue.claim(entry, for: process, at: start, until: start.addingTimeInterval(lease)) else { return false }
    let request: ExchangeRequest
    do {
      guard let found = try await loop.state(of: entry.user)?.progress.exchangeRequest(entry.number), found.isPending else {
        try await queue.remove(entry)
        return true
      }
      request = found
    } catch {
      // The user's state unreadable now: the claim is let go (the next pass tries again), never
      // held for the whole lease.
      try? await letGo(entry, due: now(), unknown: false)
      throw error
    }
    let call = request.nextCall(
      at: start, answerUnknown: waiting.unknown == true, endAsked: waiting.endAsked == true, giveUpAfter: Exchange.giveUpAfter
    )
    var answer: GiftProviderAnswer
    do {
      switch call {
      case .issue: answer = try await source.issue(request)
      case .cancel: answer = try await source.cancel(request)
      case .status:
        let known = try await source.status(request)
        answer = known == .none ? try await source.issue(request) : known
      }
      // A refusal settles nothing at a provider (an earlier call may still make the order): only
      // a cancellation does, and only its answer refunds.
      if call != .cancel, case .refused = answer { answer = try await source.cancel(request) }
      guard answer != .none else { throw GiftProviderFailure("no order, and none made") }
    } catch {
      if Task.isCancelled {
        // A form stopped waiting after `firstWait` and cancelled its call (whatever the error
        // says: the HTTP client's own, or CancellationError): asked again at once, by status.
        try await letGo(entry, due: start, unknown: true)
        throw CancellationError()
      }
      let attempts = (waiting.attempts ?? 0) + 1
      try await letGo(entry, due: now().addingTimeInterval(backoff(attempts)), unknown: true)
      _ = try await loop.send(.exchange(.fulfilmentFinished(entry.number, .failure(.unavailable))), to: entry.user)
      logger.warning("a gift source said nothing: asked again later", metadata: ["entry": "\(entry.name)", "attempt": "\(attempts)", "error": "\(error)"])
      return false
    }
    // What the source said, final: delivered, or (cancelled) refunded.
    let action: Exchange.Action =
      switch answer {
      case let .issued(code): .fulfilmentFinished(entry.number, .success(code))
      default: .cancellationFinished(entry.number, .success(nil))
      }
    do {
      let state = try await loop.send(.exchange(action), to: entry.user)
      guard state?.progress.exchangeRequest(entry.number)?.isPending != true else {
        try await letGo(entry, due: now(), unknown: false)
        return false
      }
      try await queue.remove(entry)
      return true
    } catch {
      // Not recorded (the user's update failed): asked again at once, by key (the same answer).
      try? await letGo(entry, due: now(), unknown: false)
      throw error
    }
  }

  /// Puts back `entry`, claimed by this process, in a task of its own: a call cancelled (a form
  /// stops waiting after `firstWait`) fails with its answer unheard, and in the cancelled task
  /// the write would be cancelled too, leaving the request claimed, untouched, for the lease.
  private func letGo(_ entry: ExchangeQueue.Entry, due: Date, unknown: Bool) async throws {
    try await Task { [queue, process] in try await queue.putBack(entry, by: process, due: due, unknown: unknown) }.value
  }
}
