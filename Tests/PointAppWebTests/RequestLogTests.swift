import Foundation
import HummingbirdTesting
import Logging
import PointAppWeb
import Synchronization
import Testing

/// One log line per request, as JSON for log shippers: request id, method, route pattern, status,
/// duration (Hummingbird names a path no route matches `NotFound`); never a cookie, a token or
/// what a user typed.
struct RequestLogTests {
  @Test func eachRequestIsOneLineWithItsRouteStatusAndDuration() async throws {
    let lines = Mutex<[String]>([])
    let logger = Logger(label: "pointapp") { label in
      JSONLogHandler(label: label, write: { line in lines.withLock { $0.append(line) } })
    }
    let server = try TestServer()
    let cookie = "0123456789abcdef0123456789abcdef"
    try await server.application(logger: logger).test(.router) { client in
      var browser = Browser(client: client, cookie: "pointapp_session=\(cookie)")
      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)&q%5Bcomment%5D=secret-answer")
      _ = try await browser.get("/nowhere?token=abc")
      let records = lines.withLock { $0 }.compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
      }
      let requests = records.filter { $0["message"] == "request" }
      #expect(requests.map { [$0["method"], $0["route"], $0["status"]] } == [
        ["GET", "/surveys/{id}", "200"],
        ["POST", "/surveys/{id}/answers", "303"],
        ["GET", "NotFound", "404"],
      ])
      #expect(Set(requests.compactMap { $0["hb.request.id"] }).count == 3, "each has its own id")
      #expect(requests.allSatisfy { Double($0["duration_ms"] ?? "") != nil })
      let everything = lines.withLock { $0.joined() }
      for secret in [cookie, csrf, "secret-answer", "token=abc"] {
        #expect(!everything.contains(secret), "\(secret) was logged")
      }
    }
  }
}
