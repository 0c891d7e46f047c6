import Foundation
import PointApp

/// The built-in issuer of exchange codes (the fulfiller's source without a provider): each code random
/// (16 characters of Crockford's base 32, 80 bits), unique, and stored with the request it was
/// issued for, so that asking again for a request gives its code, never a second one.
///
/// Its records: `r-<request key>` says how the request ended at the issuer (its code, sealed with
/// the process's `CodeKeys`, or cancelled), created once; `c-<digest>` reserves a code under its
/// keyed digest, created once, so that no two requests share one and no record is named after a
/// code. The fulfiller calls it outside any user's update, as it would a provider.
struct GiftCodeIssuer: Sendable {
  let storage: any RecordStorage
  /// For the crash test and the scale-out proof: requests this share of which are rejected (by
  /// their key, the same each time), calls this share of which find the issuer unavailable (at
  /// random: the request stays pending and is asked again), and the time each call takes.
  var rejectionRate = 0.0
  var unavailableRate = 0.0
  var delay: Duration = .zero

  /// How a request ended at the issuer.
  fileprivate struct Issue: Codable {
    /// Sealed (`SavedJSON`: the process's `CodeKeys`).
    var code: GiftCode?
  }

  /// The issuer as the fulfiller calls it: its answers as a provider's.
  var source: some GiftSource { Source(issuer: self) }

  private struct Source: GiftSource {
    let issuer: GiftCodeIssuer

    func issue(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
      do {
        return .issued(try await issuer.issue(request))
      } catch GiftCodeError.rejected {
        return .refused("rejected")
      } catch {
        throw GiftProviderFailure("the built-in issuer: \(error)")
      }
    }

    func status(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
      guard let ended = try await issuer.ended(GiftCodeIssuer.name(of: request)) else { return .none }
      return ended.code.map { .issued($0) } ?? .refused("cancelled")
    }

    func cancel(_ request: ExchangeRequest) async throws -> GiftProviderAnswer {
      try await issuer.cancel(request).map(GiftProviderAnswer.issued) ?? .refused("cancelled")
    }

    /// Every option, with codes that work nowhere.
    func offer() async throws -> GiftOffer { GiftOffer(testCodes: true) }
  }

  func issue(_ request: ExchangeRequest) async throws -> GiftCode {
    if delay > .zero { try await Task.sleep(for: delay) }
    if unavailableRate > 0, Double.random(in: 0..<1) < unavailableRate { throw GiftCodeError.unavailable }
    let name = Self.name(of: request)
    if let ended = try await ended(name) { return try code(of: ended) }
    if rejects(request.key) {
      _ = try await storage.create(name, try SavedJSON.encode(Issue(code: nil)))
      return try code(of: try await ended(name)!)
    }
    while true {
      let code = GiftCode(Self.randomCode())
      // Unique codes: each reserved under its digest (no record is named after a code).
      guard try await storage.create("c-\(CodeKeys.current.digest(of: code))", try JSONEncoder().encode(name)) else { continue }  // taken
      if try await storage.create(name, try SavedJSON.encode(Issue(code: code))) { return code }
      // Issued or cancelled meanwhile by another call for the same request: its answer stands.
      return try self.code(of: try await ended(name)!)
    }
  }

  func cancel(_ request: ExchangeRequest) async throws -> GiftCode? {
    let name = Self.name(of: request)
    if try await storage.create(name, try SavedJSON.encode(Issue(code: nil))) { return nil }
    return try await ended(name)!.code
  }

  fileprivate func ended(_ name: String) async throws -> Issue? {
    guard let (data, _) = try await storage.read(name) else { return nil }
    return try SavedJSON.decode(Issue.self, from: data)
  }

  private func code(of issue: Issue) throws -> GiftCode {
    guard let code = issue.code else { throw GiftCodeError.rejected }
    return code
  }

  private func rejects(_ key: TransactionID) -> Bool {
    guard rejectionRate > 0 else { return false }
    let bytes = key.rawValue.uuid
    let value = [bytes.0, bytes.1, bytes.2, bytes.3].reduce(0) { $0 << 8 | UInt32($1) }
    return Double(value) / Double(UInt32.max) < rejectionRate
  }

  /// Renames the reservations of an older release, `c-<code>`, to `c-<digest>`: once at start.
  /// Returns how many were renamed.
  @discardableResult
  func renameReservations() async throws -> Int {
    var (renamed, after): (Int, String?) = (0, nil)
    while true {
      let page = try await storage.records(prefixed: "c-", after: after, limit: 500)
      for (name, data) in page where name.dropFirst(2).contains("-") {
        _ = try await storage.create("c-" + CodeKeys.current.digest(of: GiftCode(String(name.dropFirst(2)))), data)
        if let (_, version) = try await storage.read(name) { _ = try await storage.delete(name, at: version) }
        renamed += 1
      }
      guard page.count == 500, let last = page.last else { return renamed }
      after = last.name
    }
  }

  static func name(of request: ExchangeRequest) -> String { "r-\(request.key.rawValue.uuidString.lowercased())" }

  /// `XXXX-XXXX-XXXX-XXXX` in Crockford's base 32 (no I, L, O or U: nothing to misread).
  static func randomCode() -> String {
    let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    let characters = (0..<16).map { _ in alphabet[Int.random(in: 0..<32)] }
    return stride(from: 0, to: 16, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
  }
}
