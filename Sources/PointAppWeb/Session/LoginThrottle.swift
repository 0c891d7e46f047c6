import Crypto
import Foundation
import PointApp
import Synchronization

public enum LoginLimits {
  public static let failuresAllowed = 5
  public static let lockout: TimeInterval = 15 * 60
  public static let attemptsPerMinute = 20
}

/// Slows password guessing: after `failuresAllowed` failed logins for an address, its logins are
/// refused for `lockout`; a client may try `attemptsPerMinute` logins a minute (by default
/// `LoginLimits.attemptsPerMinute`; registrations, resets and mailed links opened count with
/// them), whatever the addresses. A client's record keeps the time of each attempt of the last
/// minute: a limit of hundreds makes it some kilobytes, small beside a login's bcrypt. The counts
/// are records (`RecordKind.loginLimits`: the data folder's, the database's, or memory), shared
/// by every process and instance, each count a compare-and-swap of its record, so that guesses
/// spread over processes or sent side by side are all counted. A record is named by a hash of
/// what it counts (an address, a client), never the address itself.
public final class LoginThrottle: Sendable {
  struct Failures: Codable, Sendable {
    var count: Int
    var last: Date
  }

  struct Attempts: Codable, Sendable {
    var times: [Date]
  }

  /// `<kind>-<hash of what is counted>`: an address or a client never names a file.
  static func name(_ kind: String, _ counted: String) -> RecordName {
    RecordName(kind + "-", hex(SHA256.hash(data: Data(counted.utf8)).prefix(16)))
  }

  let failures: Records<RecordName, Failures>
  let attempts: Records<RecordName, Attempts>
  /// Logins, registrations and resets a client may try in a minute.
  let attemptsPerMinute: Int
  /// Where the next pruning step starts.
  private let pruned = Mutex<String?>(nil)

  public init(_ storage: any RecordStorage, attemptsPerMinute: Int = LoginLimits.attemptsPerMinute) {
    failures = Records(storage)
    attempts = Records(storage)
    precondition(attemptsPerMinute > 0, "a client may try at least one login a minute")
    self.attemptsPerMinute = attemptsPerMinute
  }

  /// Counts a login attempt for `email` from `client`, or refuses it. The attempt counts as a
  /// failure until `succeeded` says otherwise: guesses sent side by side, each waiting for its
  /// bcrypt, are counted before any of them is answered.
  public func admit(email: String, client: String?, now: Date) async throws {
    let name = Self.name("f", email)
    if let current = try await failures.read(name)?.record, Self.isLocked(current, now: now) { throw AccountError.throttled }
    try await admit(client: client, now: now)
    // Counted as a failure until it succeeds; refused if others reached the limit meanwhile.
    try await failures.modify(name) { current in
      if let current, Self.isLocked(current, now: now) { throw AccountError.throttled }
      let fresh = current.map { now.timeIntervalSince($0.last) < LoginLimits.lockout } ?? false
      return (Failures(count: fresh ? current!.count + 1 : 1, last: now), ())
    }
    if Int.random(in: 0..<50) == 0 { try await prune(now: now) }
  }

  /// Counts an attempt from `client` at something else that costs a bcrypt (registering), or
  /// refuses it.
  public func admit(client: String?, now: Date) async throws {
    guard let client else { return }
    try await attempts.modify(Self.name("c", client)) { current in
      let recent = (current?.times ?? []).filter { now.timeIntervalSince($0) < 60 }
      guard recent.count < attemptsPerMinute else { throw AccountError.throttled }
      return (Attempts(times: recent + [now]), ())
    }
  }

  /// Forgets what was counted of `email` (an account that ended).
  public func forget(email: String) async throws {
    try await succeeded(email: email)
  }

  public func succeeded(email: String) async throws {
    let name = Self.name("f", email)
    while let current = try await failures.read(name) {
      if try await failures.delete(name, at: current.version) { return }
    }
  }

  private static func isLocked(_ failures: Failures, now: Date) -> Bool {
    failures.count >= LoginLimits.failuresAllowed && now.timeIntervalSince(failures.last) < LoginLimits.lockout
  }

  /// Deletes, among the next 200 records round the store, those too old to matter: one login in
  /// fifty does a step.
  func prune(now: Date) async throws {
    let names = try await failures.storage.names(after: pruned.withLock { $0 }, limit: 200)
    pruned.withLock { $0 = names.count < 200 ? nil : names.last }
    for recordName in names {
      let name = RecordName(recordName: recordName)!
      if recordName.hasPrefix("f-"), let read = try await failures.read(name), now.timeIntervalSince(read.record.last) >= LoginLimits.lockout {
        _ = try await failures.delete(name, at: read.version)
      } else if recordName.hasPrefix("c-"), let read = try await attempts.read(name), read.record.times.allSatisfy({ now.timeIntervalSince($0) >= 60 }) {
        _ = try await attempts.delete(name, at: read.version)
      }
    }
  }
}
