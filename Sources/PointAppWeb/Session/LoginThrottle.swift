import Foundation
import PointApp
import Synchronization

/// Slows password guessing: after `failuresAllowed` failed logins for an address, its logins are
/// refused for `lockout`; a client may try `attemptsPerMinute` logins a minute, whatever the
/// addresses. Nothing above this protocol knows where the counts are kept: in the process's memory
/// (`InMemoryLoginThrottle`, which a restart forgets), or in PostgreSQL, shared by every instance.
public protocol LoginThrottle: Sendable {
  /// Counts a login attempt for `email` from `client`, or refuses it. The attempt counts as a
  /// failure until `succeeded` says otherwise: guesses sent side by side, each waiting for its
  /// bcrypt, are counted before any of them is answered.
  func admit(email: String, client: String?, now: Date) async throws
  /// Counts an attempt from `client` at something else that costs a bcrypt (registering), or
  /// refuses it.
  func admit(client: String?, now: Date) async throws
  func succeeded(email: String) async throws
}

public enum LoginLimits {
  public static let failuresAllowed = 5
  public static let lockout: TimeInterval = 15 * 60
  public static let attemptsPerMinute = 20
}

/// The counts in the process's memory.
public final class InMemoryLoginThrottle: LoginThrottle {
  static let failuresAllowed = LoginLimits.failuresAllowed
  static let lockout = LoginLimits.lockout
  static let attemptsPerMinute = LoginLimits.attemptsPerMinute

  private struct Failures {
    var count = 0
    var last = Date.distantPast
  }

  private struct Counts {
    var failures: [String: Failures] = [:]
    var attempts: [String: [Date]] = [:]
  }

  private let counts = Mutex(Counts())

  public init() {}

  public func admit(email: String, client: String?, now: Date) throws {
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
    if !admitted { throw AccountError.throttled }
  }

  public func admit(client: String?, now: Date) throws {
    guard counts.withLock({ Self.admit(client, now: now, &$0) }) else { throw AccountError.throttled }
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

  public func succeeded(email: String) {
    counts.withLock { $0.failures[email] = nil }
  }
}
