import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import PointApp

/// The key id and secret that sign every call to the provider, read from a file
/// (`<key id>:<secret>` on one line), never from a flag.
struct GiftProviderCredentials: Sendable {
  let keyID: String
  let secret: Data

  init(keyID: String, secret: String) {
    self.keyID = keyID
    self.secret = Data(secret.utf8)
  }

  init(file: String) throws {
    guard let text = FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) }) else {
      throw GiftProviderFailure("cannot read the provider's credentials file \(file)")
    }
    let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, line.index(after: colon) != line.endIndex else {
      throw GiftProviderFailure("the provider's credentials file \(file) is not \"<key id>:<secret>\"")
    }
    self.init(keyID: String(line[..<colon]), secret: String(line[line.index(after: colon)...]))
  }
}

/// Where the provider is and how calls to it are signed, as `serve` is told.
public struct GiftProviderSettings: Sendable {
  /// Scheme, host and port: `https://gifts.example.jp`.
  public var url: String
  /// The file with the credentials (`<key id>:<secret>`).
  public var credentialsFile: String
  /// How long a call may take, its answer included.
  public var timeout = Duration.seconds(10)

  public init(url: String, credentialsFile: String) {
    self.url = url
    self.credentialsFile = credentialsFile
  }
}

/// An order as the provider keeps it.
struct GiftProviderOrder: Codable, Equatable, Sendable {
  enum Status: String, Codable, Sendable {
    case issued, cancelled
  }

  let key: String
  let product: String
  let status: Status
  let code: String?
  let created: Date
}

/// What the provider answered about a request: final, whichever it is.
public enum GiftProviderAnswer: Equatable, Sendable {
  /// Issued, now or before, with its code.
  case issued(GiftCode)
  /// Never to be issued: cancelled, or refused for good (the product cannot be delivered) with
  /// the provider's word.
  case refused(String)
  /// (A status asked for) no order under the key *now*: an order whose call is still under way
  /// at the provider may appear later. Only a cancellation settles a key for good.
  case none
}

/// The provider said nothing that can be trusted (5xx, a timeout, a dropped connection, an answer
/// that makes no sense): whether it made the order is unknown, and is asked again by key.
public struct GiftProviderFailure: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// A gift provider over HTTP (`Deploy/gift-provider-api.yaml`): orders made under our request's
/// key (idempotent: the same key never makes a second order), asked for by key, cancelled by key;
/// every call signed (HMAC-SHA256 of a timestamp, the method, the path and the body's hash) and
/// given `timeout` at most.
struct GiftProvider: Sendable {
  /// The provider's address, scheme and host (and port) only: `https://gifts.example.jp`.
  let baseURL: String
  let credentials: GiftProviderCredentials
  var client: HTTPClient = Self.client
  /// How long a call may take, its answer's body included.
  var timeout: TimeAmount = .seconds(10)
  var now: @Sendable () -> Date = { Date() }

  /// The process's client for providers: no redirects (a signed call is never sent elsewhere),
  /// reads that stall give up.
  /// Up to 64 calls at once to the provider: the client's default of 8 connections a host made
  /// the 9th of 20 exchanges at once wait for a slow provider's earlier answers (benchmark X1:
  /// with a provider taking 2 s an order, 8 of 20 forms showed the code, the rest 申請中).
  static let client = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: {
      var configuration = HTTPClient.Configuration(
        // (Each call's own deadline, `timeout`, bounds it whole; the read timeout only catches
        // a stall past the longest deadline allowed, 30 s.)
        certificateVerification: .fullVerification, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(35))
      )
      configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
      return configuration
    }()
  )

  /// Orders `product`'s code under `key`.
  func issue(key: TransactionID, product: String) async throws -> GiftProviderAnswer {
    let body = try JSONSerialization.data(withJSONObject: ["product": product], options: [.sortedKeys])
    let (status, answer) = try await call(.POST, "/v1/orders", body: body, idempotencyKey: Self.key(key))
    switch status {
    case 200, 201, 409 where answer.order != nil:
      // (409: the key was cancelled, or used for another product; the order says which.)
      return try Self.final(answer, for: key)
    case 422 where answer.error != nil:
      return .refused(answer.error ?? "")
    default:
      throw GiftProviderFailure("the provider answered \(status) to an order")
    }
  }

  /// The order under `key`, as it stands.
  func status(key: TransactionID) async throws -> GiftProviderAnswer {
    let (status, answer) = try await call(.GET, "/v1/orders/" + Self.key(key))
    switch status {
    case 200: return try Self.final(answer, for: key)
    case 404 where answer.error == "no_order": return .none
    default: throw GiftProviderFailure("the provider answered \(status) to a status")
    }
  }

  /// Makes sure `key` is never issued: `.refused` (cancelled) when it had not been, its order
  /// `.issued` when it had (then the request must deliver its code).
  func cancel(key: TransactionID) async throws -> GiftProviderAnswer {
    let (status, answer) = try await call(.POST, "/v1/orders/\(Self.key(key))/cancel")
    guard status == 200 else { throw GiftProviderFailure("the provider answered \(status) to a cancellation") }
    return try Self.final(answer, for: key)
  }

  /// Whether each product can be delivered now.
  func products() async throws -> [String: Bool] {
    struct Products: Decodable {
      struct Product: Decodable {
        let id: String
        let available: Bool
      }
      let products: [Product]
    }
    let (status, data) = try await exchange(.GET, "/v1/products", body: Data())
    guard status == 200, let list = try? JSONDecoder().decode(Products.self, from: data) else {
      throw GiftProviderFailure("the provider answered \(status) to the products")
    }
    return Dictionary(list.products.map { ($0.id, $0.available) }, uniquingKeysWith: { first, _ in first })
  }

  /// Every order made on `day` (Japan time), cancelled keys included.
  func orders(on day: Day) async throws -> [GiftProviderOrder] {
    struct Orders: Decodable { let orders: [GiftProviderOrder] }
    let (status, data) = try await exchange(.GET, "/v1/orders?day=" + day.iso, body: Data())
    guard status == 200, let list = try? Self.decoder.decode(Orders.self, from: data) else {
      throw GiftProviderFailure("the provider answered \(status) to the orders of \(day.iso)")
    }
    return list.orders
  }

  // MARK: - The wire

  private struct Answer: Decodable {
    let order: GiftProviderOrder?
    let error: String?
  }

  private static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    // ISO 8601, with or without fractions of a second.
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      guard let date = (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Self.fractional)) else {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
      }
      return date
    }
    return decoder
  }()

  /// ISO 8601 with fractions of a second, as some providers write their dates.
  private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  private static func key(_ key: TransactionID) -> String { key.rawValue.uuidString.lowercased() }

  /// An order's answer, for `key`, as a final one; anything else is no answer.
  private static func final(_ answer: Answer, for key: TransactionID) throws -> GiftProviderAnswer {
    guard answer.order?.key == Self.key(key) else { throw GiftProviderFailure("the provider's answer is not about the order asked for") }
    switch (answer.order?.status, answer.order?.code) {
    case let (.issued?, code?) where !code.isEmpty: return .issued(GiftCode(code))
    case (.cancelled?, _): return .refused("cancelled")
    default: throw GiftProviderFailure("the provider's answer carries no order")
    }
  }

  private func call(_ method: HTTPMethod, _ path: String, body: Data = Data(), idempotencyKey: String? = nil) async throws -> (Int, Answer) {
    let (status, data) = try await exchange(method, path, body: body, idempotencyKey: idempotencyKey)
    guard (200..<500).contains(status) else { return (status, Answer(order: nil, error: nil)) }
    guard let answer = try? Self.decoder.decode(Answer.self, from: data) else {
      throw GiftProviderFailure("the provider's answer (\(status)) is not JSON")
    }
    return (status, answer)
  }

  private func exchange(_ method: HTTPMethod, _ path: String, body: Data, idempotencyKey: String? = nil) async throws -> (Int, Data) {
    let (url, authorization) = (baseURL + path, signature(method, path, idempotencyKey: idempotencyKey, body: body))
    let deadline = NIODeadline.now() + timeout
    do {
      // The whole call, its body read included, within `timeout`.
      return try await withThrowingTaskGroup(of: (Int, Data)?.self) { group in
        group.addTask { [client] in
          var request = HTTPClientRequest(url: url)
          request.method = method
          request.headers.add(name: "Authorization", value: authorization)
          request.headers.add(name: "Content-Type", value: "application/json")
          if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey) }
          if !body.isEmpty { request.body = .bytes(ByteBuffer(bytes: body)) }
          let response = try await client.execute(request, deadline: deadline)
          let bytes = try await response.body.collect(upTo: 1 << 22)
          return (Int(response.status.code), Data(bytes.readableBytesView))
        }
        group.addTask { [timeout] in
          try await Task.sleep(for: .nanoseconds(timeout.nanoseconds))
          return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let answer = first else { throw GiftProviderFailure("no answer from the provider within \(timeout)") }
        return answer
      }
    } catch let failure as GiftProviderFailure {
      throw failure
    } catch {
      throw GiftProviderFailure("no answer from the provider: \(error)")
    }
  }

  /// `PointApp-HMAC-SHA256 key=…, ts=…, sig=…` over the timestamp, the method, the path with its
  /// query, the idempotency key (empty without one: a call replayed with another key is refused)
  /// and the body's SHA-256.
  func signature(_ method: HTTPMethod, _ path: String, idempotencyKey: String?, body: Data) -> String {
    let timestamp = Int(now().timeIntervalSince1970)
    let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
    let text = "\(timestamp)\n\(method.rawValue)\n\(path)\n\(idempotencyKey ?? "")\n\(digest)"
    let mac = HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: credentials.secret))
    return "PointApp-HMAC-SHA256 key=\(credentials.keyID), ts=\(timestamp), sig=" + mac.map { String(format: "%02x", $0) }.joined()
  }
}

extension GiftProvider {
  /// The provider `settings` name, its credentials read from their file.
  init(_ settings: GiftProviderSettings) throws {
    guard let url = URL(string: settings.url), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty || url.path == "/" else {
      throw GiftProviderFailure("the provider's address must be http(s)://host[:port], got \(settings.url)")
    }
    self.init(baseURL: settings.url.hasSuffix("/") ? String(settings.url.dropLast()) : settings.url, credentials: try GiftProviderCredentials(file: settings.credentialsFile))
    timeout = settings.timeout.timeAmount
  }
}
