import Foundation
import Hummingbird
import PointApp
import HummingbirdTesting
@testable import PointAppWeb
import Prometheus
import Testing

/// The product's figures, as Prometheus reads them from the metrics port: awards counted once
/// saved, store latencies, and never on the public port.
struct MetricsTests {
  /// Each sample of the registry's text, by name and labels as written (`name{label="value"}`).
  static func samples(_ registry: PrometheusCollectorRegistry) async throws -> [String: Double] {
    let text = try await Application(router: MetricsExport.router(registry)).test(.router) { client in
      try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        return String(buffer: response.body)
      }
    }
    var samples: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
      samples[String(line[..<space])] = value
    }
    return samples
  }

  @Test func awardsAreCountedOnceEachAndStoreTimesRecorded() async throws {
    let registry = PrometheusCollectorRegistry()
    let server = try TestServer()
    try await server.application(metrics: registry).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/sweets")
      for _ in 0..<2 {  // the second pays nothing
        _ = try await browser.post("/surveys/sweets/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      }
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(csrf)")  // refused
      _ = try await browser.post("/missions/answerOne/claim", form: "csrf=\(csrf)")
      _ = try await browser.post("/missions/answerOne/claim", form: "csrf=\(csrf)")  // claimed already
      try await browser.get("/points")
      #expect(try await browser.get("/metrics").status == .notFound, "never on the public port")
    }
    let samples = try await Self.samples(registry)
    #expect(samples["pointapp_answers_accepted"] == 1)
    #expect(samples[#"pointapp_points_issued{reason="survey"}"#] == 60)
    #expect(samples["pointapp_mission_claims"] == 1)
    #expect(samples[#"pointapp_points_issued{reason="mission"}"#] == 10)
    #expect(samples["pointapp_exchanges"] == 0)
    #expect(samples["pointapp_effect_deadline_overruns"] == 0)
    #expect(samples["pointapp_responses_5xx"] == 0)
    // Reads: the page views of a returning user (the survey, the points). (A cookie the server
    // marked is never taken for a guest's from before session records: no read for that.) Updates: the survey's
    // page (the day's first visit), two answers (the second's flash), the refused draft, two
    // claims (the second's flash), the points page (it showed a flash).
    #expect(samples["pointapp_store_read_seconds_count"] == 2)
    #expect(samples["pointapp_store_update_seconds_count"] == 7)
  }

  @Test func anExchangeIsCountedWithItsPoints() async throws {
    let registry = PrometheusCollectorRegistry()
    let server = try TestServer()
    let sweets = testCatalog[1]
    let rich = (0..<50).map { number in
      Survey(
        id: SurveyID("rich-\(number)"), title: sweets.title, description: sweets.description, category: sweets.category,
        questions: sweets.questions, reward: 60, estimatedMinutes: 1, publishedAt: sweets.publishedAt, expiresAt: nil
      )
    }
    try await server.application(catalog: rich, metrics: registry).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      var csrf = try await browser.csrf(from: "/surveys/rich-0")
      _ = try await browser.post("/register", form: "csrf=\(csrf)&email=hanako%40example.jp&password=correct+horse+battery")
      try await browser.verifyAddress("hanako@example.jp", in: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      csrf = try await browser.csrf(from: "/surveys/rich-0")
      for survey in rich {
        _ = try await browser.post("/surveys/\(survey.id.rawValue)/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=5")
      }
      let ledger = try await browser.hidden("ledger", from: "/exchange/digital-gift-300")
      let exchanged = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(csrf)&ledger=\(ledger)")
      #expect(exchanged.headers[.location] == "/exchange/history/1")
    }
    let samples = try await Self.samples(registry)
    #expect(samples["pointapp_answers_accepted"] == 50)
    #expect(samples["pointapp_exchanges"] == 1)
    #expect(samples["pointapp_points_exchanged"] == 3_000)
  }

  /// The requests waiting for their code and the oldest one's age, counted from the queue: a
  /// request made while the source is down waits (its age growing with the clock), and leaves the
  /// count once fulfilled.
  @Test func waitingExchangesAndTheOldestsAgeAreShown() async throws {
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    let source = StubGiftSource(up: false)
    let registry = PrometheusCollectorRegistry()
    try await server.application(metrics: registry, giftSource: source).test(.router) { client in
      _ = try await PendingExchangeTests.requestExchange(client, cookie: seeded, mail: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      try await eventually { try await Self.samples(registry)["pointapp_exchanges_waiting"] == 1 }
      #expect(try await Self.samples(registry)["pointapp_exchange_oldest_waiting_seconds"] == 0)
    }
    let later = PrometheusCollectorRegistry()
    try await server.application(metrics: later, giftSource: source, now: noon + 5_400).test(.router) { _ in
      try await eventually { try await Self.samples(later)["pointapp_exchange_oldest_waiting_seconds"] == 5_400 }
      #expect(try await Self.samples(later)["pointapp_exchanges_waiting"] == 1)
      source.up.withLock { $0 = true }
      try await eventually { try await Self.samples(later)["pointapp_exchanges_waiting"] == 0 }
    }
  }
}
