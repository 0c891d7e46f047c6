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
    try await server.application(logger: logger).test(.router) { client in
      var browser = Browser(client: client)
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
      // The session the server issued: its id, and the cookie's value with its mark.
      let session = try #require(browser.sessionID)
      let cookie = try #require(browser.cookie?.split(separator: "=", maxSplits: 1).last.map(String.init))
      for secret in [session, cookie, csrf, "secret-answer", "token=abc"] {
        #expect(!everything.contains(secret), "\(secret) was logged")
      }
    }
  }

  /// `LOG_LEVEL=trace`: every action a user's store received and the change it made, in the log
  /// (`_printChanges`), and never a password or a mailed link's token.
  @Test func theTraceShowsAnAnsweredSurveysActionsAndChangesAndNoPassword() async throws {
    let lines = Mutex<[String]>([])
    let logger = Logger(label: "pointapp") { label in
      JSONLogHandler(label: label, write: { line in lines.withLock { $0.append(line) } })
    }
    let server = try TestServer()
    try await server.application(logger: logger, logLevel: .trace).test(.router) { client in
      var browser = Browser(client: client)
      let csrf = try await browser.csrf(from: "/surveys/breakfast")
      lines.withLock { $0 = [] }
      let form = "csrf=\(csrf)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4"
      #expect(try await browser.post("/surveys/breakfast/answers", form: form).headers[.location] == "/surveys/breakfast/complete")
      let traces = lines.withLock { $0 }.compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
      }.filter { $0["level"] == "trace" }.compactMap { $0["message"] }
      let answered = try #require(traces.first { $0.contains("AppFeature.Action.answersSubmitted\n") })
      #expect(answered.hasPrefix("received action:\n"))
      #expect(traces.contains { $0.contains("AppFeature.Action.surveyDetail\n") }, "the child's actions too: \(traces.map { $0.prefix(120) })")
      #expect(traces.contains { $0.contains("−") && $0.contains("+") && $0.contains("answeredCount") }, "a diff of the state")

      lines.withLock { $0 = [] }
      let token = try await browser.csrf(from: "/register")
      let registered = try await browser.post("/register", form: "csrf=\(token)&email=hanako%40example.jp&password=correct+horse+battery+staple")
      #expect(registered.headers[.location] == "/points", "\(registered.status)")
      let signIn = lines.withLock { $0.joined(separator: "\n") }
      #expect(signIn.contains("SignInForm.Action.submitted") && signIn.contains("password: <secret>"), "the registration is traced, its password hidden")
      #expect(signIn.contains("<secret>"))
      #expect(!signIn.contains("horse") && !signIn.contains("staple"), "never the password")
      // The registration mailed a verification link: its token opens the address, never traced.
      let link = try #require(try await Mailbox.verificationToken(to: "hanako@example.jp", in: FileBackend(server.dataDirectory), data: server.dataDirectory))
      #expect(signIn.contains("token: <secret>") && !signIn.contains(link), "the mailed link's token is hidden")
    }
    let info = Mutex<[String]>([])
    let quiet = Logger(label: "pointapp") { label in JSONLogHandler(label: label, write: { line in info.withLock { $0.append(line) } }) }
    try await TestServer().application(logger: quiet).test(.router) { client in
      var browser = Browser(client: client)
      _ = try await browser.get("/surveys")
    }
    #expect(!info.withLock { $0.joined() }.contains("received action"), "nothing is traced below the trace level")
  }
}
