import AsyncHTTPClient
import Foundation
import NIOCore
import PointApp
@testable import PointAppWeb
import Testing

/// The sandbox gift provider (`Scripts/sandbox-gift-provider.py`), a process of its own with its
/// own ledger, told to misbehave while it runs.
final class SandboxProvider: Sendable {
  let server: ScriptServer
  let credentials: URL

  private init(server: ScriptServer, credentials: URL) { (self.server, self.credentials) = (server, credentials) }

  static func start(_ options: [String] = []) async throws -> SandboxProvider {
    let credentials = scratch("provider-key")
    try Data("pointapp-test:\(hex(randomBytes(16)))".utf8).write(to: credentials)
    let server = try await ScriptServer.start("sandbox-gift-provider.py", ["--credentials", credentials.path] + options)
    return SandboxProvider(server: server, credentials: credentials)
  }

  deinit { try? FileManager.default.removeItem(at: credentials) }

  var url: String { "http://127.0.0.1:\(server.port)" }

  func provider(timeout: TimeAmount = .seconds(5)) throws -> GiftProvider {
    GiftProvider(baseURL: url, credentials: try GiftProviderCredentials(file: credentials.path), timeout: timeout)
  }

  /// Sets its faults (`delay`, `error_rate`, `drop_rate`, `issue_then_drop`, `unavailable`, …).
  func misbehave(_ faults: String) async throws {
    var request = HTTPClientRequest(url: url + "/sandbox/faults")
    request.method = .POST
    request.body = .bytes(ByteBuffer(string: faults))
    _ = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
  }

  /// Its log: a line per order it made ("<key> <product> <code>").
  func log() -> [String] {
    ((try? String(contentsOf: server.folder.appendingPathComponent("log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }
}

/// Every answer the provider can give, over HTTP to the sandbox: an order made once under its key
/// however often it is asked, a cancelled key never issued, a product it cannot deliver refused,
/// and its failures (5xx, a dropped connection, slowness past the deadline, an order made and its
/// answer lost) never taken for an answer.
struct GiftProviderTests {
  static func key() -> TransactionID { TransactionID(UUID()) }

  @Test func anOrderIsMadeOnceUnderItsKeyHoweverOftenItIsAskedFor() async throws {
    let sandbox = try await SandboxProvider.start()
    let provider = try sandbox.provider()
    let key = Self.key()
    guard case let .issued(code) = try await provider.issue(key: key, product: "gift-300") else {
      Issue.record("not issued")
      return
    }
    #expect(code.value.count == 19)
    #expect(try await provider.issue(key: key, product: "gift-300") == .issued(code))
    #expect(try await provider.status(key: key) == .issued(code))
    #expect(try await provider.cancel(key: key) == .issued(code), "issued before: it stays issued")
    #expect(try await provider.issue(key: key, product: "emoney-500") == .issued(code), "asked for another product: the order made stands")
    #expect(sandbox.log() == ["\(key.rawValue.uuidString.lowercased()) gift-300 \(code.value)"])
    #expect(try await provider.status(key: Self.key()) == GiftProviderAnswer.none)
    let orders = try await provider.orders(on: Day(Date(), in: .tokyo))
    #expect(orders.map(\.code) == [code.value])
  }

  @Test func aKeyCancelledBeforeItIsIssuedIsNeverIssued() async throws {
    let sandbox = try await SandboxProvider.start()
    let provider = try sandbox.provider()
    let key = Self.key()
    #expect(try await provider.cancel(key: key) == .refused("cancelled"))
    #expect(try await provider.issue(key: key, product: "gift-300") == .refused("cancelled"))
    #expect(try await provider.status(key: key) == .refused("cancelled"))
    #expect(sandbox.log().isEmpty)
  }

  @Test func aProductTheProviderCannotDeliverIsRefusedAndListedSo() async throws {
    let sandbox = try await SandboxProvider.start(["--unavailable", "emoney-500"])
    let provider = try sandbox.provider()
    #expect(try await provider.issue(key: Self.key(), product: "emoney-500") == .refused("product_unavailable"))
    #expect(try await provider.issue(key: Self.key(), product: "no-such-product") == .refused("unknown_product"))
    let products = try await provider.products()
    #expect(products["emoney-500"] == false && products["gift-300"] == true)
    #expect(sandbox.log().isEmpty)
  }

  /// 5xx and a dropped connection say nothing, and nothing was ordered; an order made whose answer
  /// was lost, or that came past the deadline, is found by its key afterwards, never made twice.
  @Test func failuresAreNeverTakenForAnAnswer() async throws {
    let sandbox = try await SandboxProvider.start()
    let provider = try sandbox.provider(timeout: .milliseconds(500))
    let key = Self.key()
    for faults in [#"{"error_rate": 1}"#, #"{"drop_rate": 1}"#] {
      try await sandbox.misbehave(faults)
      await #expect(throws: GiftProviderFailure.self, "\(faults)") { try await provider.issue(key: key, product: "giftcard-1000") }
    }
    try await sandbox.misbehave("{}")
    #expect(sandbox.log().isEmpty)
    #expect(try await provider.status(key: key) == GiftProviderAnswer.none)
    try await sandbox.misbehave(#"{"issue_then_drop": 1}"#)
    await #expect(throws: GiftProviderFailure.self) { try await provider.issue(key: key, product: "giftcard-1000") }
    let made = try #require(sandbox.log().first?.split(separator: " ").last.map(String.init))
    try await sandbox.misbehave("{}")
    #expect(try await provider.status(key: key) == .issued(GiftCode(made)))
    #expect(try await provider.issue(key: key, product: "giftcard-1000") == .issued(GiftCode(made)))
    // Slower than the deadline: no answer, though the provider goes on and makes the order.
    let slow = Self.key()
    try await sandbox.misbehave(#"{"delay": 1.5}"#)
    let asked = ContinuousClock.now
    await #expect(throws: GiftProviderFailure.self) { try await provider.issue(key: slow, product: "giftcard-1000") }
    #expect(ContinuousClock.now - asked < .seconds(1.2), "the deadline holds")
    try await Task.sleep(for: .seconds(2))
    try await sandbox.misbehave("{}")
    guard case .issued = try await provider.status(key: slow) else {
      Issue.record("the slow order was not found by its key")
      return
    }
    #expect(sandbox.log().count == 2)
  }

  @Test func aCallSignedWithAnotherSecretIsRefusedAndChangesNothing() async throws {
    let sandbox = try await SandboxProvider.start()
    let forger = GiftProvider(baseURL: sandbox.url, credentials: GiftProviderCredentials(keyID: "pointapp-test", secret: "guessed"))
    await #expect(throws: GiftProviderFailure.self) { try await forger.issue(key: Self.key(), product: "gift-300") }
    var late = try sandbox.provider()
    late.now = { Date().addingTimeInterval(-600) }
    await #expect(throws: GiftProviderFailure.self) { try await late.issue(key: Self.key(), product: "gift-300") }
    // An order seen once (a log, a proxy) sent again under another key: refused.
    let body = Data(#"{"product":"gift-300"}"#.utf8)
    var replay = HTTPClientRequest(url: sandbox.url + "/v1/orders")
    replay.method = .POST
    replay.headers.add(name: "Authorization", value: try sandbox.provider().signature(.POST, "/v1/orders", idempotencyKey: Self.key().rawValue.uuidString.lowercased(), body: body))
    replay.headers.add(name: "Idempotency-Key", value: Self.key().rawValue.uuidString.lowercased())
    replay.body = .bytes(ByteBuffer(bytes: body))
    #expect(try await HTTPClient.shared.execute(replay, timeout: .seconds(5)).status == .unauthorized)
    #expect(sandbox.log().isEmpty)
  }
}
