import Foundation
import Hummingbird
import HummingbirdTesting
import PointAppWeb
import Testing

/// Thousands of generated requests, most of them hostile: none may answer 5xx or crash, and none
/// that is refused may change a user's file.
struct FuzzTests {
  static let requestCount = 10_000

  @Test func tenThousandRandomRequests() async throws {
    let server = try TestServer()
    try await server.application().test(.router) { client in
      var users: [(cookie: String, csrf: String)] = []
      for _ in 0..<2 {
        var browser = Browser(client: client)
        try await browser.get("/surveys")
        let csrf = try await browser.csrf(from: "/surveys/breakfast")
        users.append((try #require(browser.cookie), csrf))
      }
      var random = SplitMix64(seed: 20_261_122)
      var statuses: [Int: Int] = [:]
      for _ in 0..<Self.requestCount {
        let request = FuzzRequest.make(&random, users: users)
        let before = try server.files()
        let response = try await client.execute(
          uri: request.uri, method: request.method, headers: request.headers, body: ByteBuffer(bytes: request.body)
        )
        statuses[Int(response.status.code), default: 0] += 1
        #expect(response.status.code < 500, "\(request)")
        if response.status.code >= 400 {
          #expect(try server.files() == before, "refused request changed a file: \(request)")
        }
      }
      print("fuzz: \(Self.requestCount) requests, statuses \(statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " "))")
      #expect(statuses.keys.contains { $0 >= 400 } && statuses.keys.contains { $0 < 400 }, "the generator reaches both outcomes")
    }
  }
}

/// A deterministic generator, so that a failing request can be found again.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

struct FuzzRequest: CustomStringConvertible {
  var method: HTTPRequest.Method
  var uri: String
  var headers: HTTPFields
  var body: [UInt8]

  var description: String {
    "\(method) \(uri) \(headers.map { "\($0.name)=\($0.value.prefix(80))" }) body \(body.prefix(120))"
  }

  static let paths = [
    "/", "/surveys", "/surveys/breakfast", "/surveys/sweets", "/surveys/old", "/surveys/breakfast/answers",
    "/surveys/sweets/answers", "/surveys/breakfast/complete", "/points", "/points/history", "/missions",
    "/missions/visit/claim", "/missions/answerOne/claim", "/missions/nope/claim", "/exchange",
    "/exchange/digital-gift-300", "/healthz", "/styles.css", "/../Package.swift", "/%2e%2e/%2e%2e/etc/passwd",
    "/surveys/%00", "/surveys/..%2f..%2fdata", "/surveys/" + String(repeating: "x", count: 3_000), "/ポイント",
  ]
  static let fragments = ["%", "%Z", "%zz", "%00", "%FF%FE", "&", "=", "==", "[", "]", "q[", "q[]", "q[a", "+", " ", "\u{0}", "ア", "😀", "..", "/", "\\"]

  static func make(_ random: inout SplitMix64, users: [(cookie: String, csrf: String)]) -> FuzzRequest {
    let methods: [HTTPRequest.Method] = [.get, .get, .post, .post, .post, .put, .delete, .head, .patch, .options]
    var uri = paths.randomElement(using: &random)!
    if Bool.random(using: &random) {
      uri += "?" + (0..<Int.random(in: 1...4, using: &random)).map { _ in
        ["category", "sort", "page", "x"].randomElement(using: &random)! + "=" + garbage(&random, maxLength: 12)
      }.joined(separator: "&")
    }
    var headers: HTTPFields = [:]
    let user = users.randomElement(using: &random)!
    switch Int.random(in: 0..<6, using: &random) {
    case 0: break
    case 1, 2: headers[.cookie] = user.cookie
    case 3: headers[.cookie] = "pointapp_session=../../" + garbage(&random, maxLength: 20)
    case 4: headers[.cookie] = "pointapp_session=" + String(repeating: "f", count: Int.random(in: 0...5_000, using: &random))
    default: headers[.cookie] = garbage(&random, maxLength: 60)
    }
    switch Int.random(in: 0..<5, using: &random) {
    case 0: headers[.contentType] = "application/json"
    case 1: break
    default: headers[.contentType] = "application/x-www-form-urlencoded"
    }
    if Int.random(in: 0..<4, using: &random) == 0 {
      headers[.origin] = ["null", "https://evil.example", "http://localhost", garbage(&random, maxLength: 30)].randomElement(using: &random)!
    }
    return FuzzRequest(
      method: methods.randomElement(using: &random)!, uri: uri, headers: headers, body: body(&random, csrf: user.csrf)
    )
  }

  static func body(_ random: inout SplitMix64, csrf: String) -> [UInt8] {
    var fields: [String] = []
    switch Int.random(in: 0..<4, using: &random) {
    case 0: break
    case 1: fields.append("csrf=\(csrf)")
    case 2: fields.append("csrf=" + garbage(&random, maxLength: 64))
    default: fields.append(contentsOf: ["csrf=\(csrf)", "csrf=\(csrf)"])
    }
    for _ in 0..<Int.random(in: 0...6, using: &random) {
      let name = Bool.random(using: &random)
        ? "q%5B" + ["frequency", "foods", "satisfaction", "comment", "x"].randomElement(using: &random)! + "%5D"
        : garbage(&random, maxLength: 10)
      let value = Bool.random(using: &random)
        ? ["daily", "rarely", "rice", "bread", "fruit", "1", "5", "9", "-1"].randomElement(using: &random)!
        : garbage(&random, maxLength: 30)
      fields.append(name + "=" + value)
    }
    if Int.random(in: 0..<20, using: &random) == 0 {
      fields.append(String(repeating: "k", count: Int.random(in: 1_000...40_000, using: &random)) + "=v")
    }
    var bytes = Array(fields.shuffled(using: &random).joined(separator: "&").utf8)
    if Int.random(in: 0..<10, using: &random) == 0 {
      bytes.insert(contentsOf: [0xFF, 0xC3, 0x28, 0x00], at: Int.random(in: 0...bytes.count, using: &random))
    }
    return bytes
  }

  static func garbage(_ random: inout SplitMix64, maxLength: Int) -> String {
    (0..<Int.random(in: 0...maxLength, using: &random)).map { _ in
      Bool.random(using: &random)
        ? fragments.randomElement(using: &random)!
        : String(UnicodeScalar(UInt8.random(in: 0x21...0x7E, using: &random)))
    }.joined()
  }
}
