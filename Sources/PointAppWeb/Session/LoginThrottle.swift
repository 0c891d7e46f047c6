import Foundation
import PointApp
import Synchronization

/// Slows password guessing: after `failuresAllowed` failed logins for an address, its logins are
/// refused for `lockout`; a client may try `attemptsPerMinute` logins a minute, whatever the
/// addresses. Kept in the process's memory: a restart forgets it.
final class LoginThrottle: Sendable {
  static let failuresAllowed = 5
  static let lockout: TimeInterval = 15 * 60
  static let attemptsPerMinute = 20

  private struct Failures {
    var count = 0
    var last = Date.distantPast
  }

  private struct Counts {
    var failures: [String: Failures] = [:]
    var attempts: [String: [Date]] = [:]
  }

  private let counts = Mutex(Counts())

  init() {}

  /// Counts a login attempt for `email` from `client`, or refuses it. The attempt counts as a
  /// failure until `succeeded` says otherwise: guesses sent side by side, each waiting for its
  /// bcrypt, are counted before any of them is answered.
  func admit(email: String, client: String?, now: Date) throws(AccountError) {
    let admitted = counts.withLock { counts in
      if let failures = counts.failures[email], now.timeIntervalSince(failures.last) >= Self.lockout {
        counts.failures[email] = nil  // an old run of failures is forgotten
      }
      if (counts.failures[email]?.count ?? 0) >= Self.failuresAllowed { return false }
      guard Self.admit(client, now: now, &counts) else { return false }
      counts.failures[email, default: Failures()].count += 1
      counts.failures[email]?.last = now
      if counts.failures.count > 10_000 { counts.failures = counts.failures.filter { now.timeIntervalSince($0.value.last) < Self.lockout } }
      return true
    }
    if !admitted { throw .throttled }
  }

  /// Counts an attempt from `client` at something else that costs a bcrypt (registering), or
  /// refuses it.
  func admit(client: String?, now: Date) throws(AccountError) {
    guard counts.withLock({ Self.admit(client, now: now, &$0) }) else { throw .throttled }
  }

  private static func admit(_ client: String?, now: Date, _ counts: inout Counts) -> Bool {
    guard let client else { return true }
    var recent = (counts.attempts[client] ?? []).filter { now.timeIntervalSince($0) < 60 }
    guard recent.count < attemptsPerMinute else { return false }
    recent.append(now)
    counts.attempts[client] = recent
    if counts.attempts.count > 10_000 { counts.attempts = counts.attempts.filter { now.timeIntervalSince($0.value.last!) < 60 } }
    return true
  }

  func succeeded(email: String) {
    counts.withLock { $0.failures[email] = nil }
  }
}
