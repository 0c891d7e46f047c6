import Foundation
import HummingbirdTesting
import PointApp
import Testing

@testable import PointAppWeb

/// A quota shared by every user: 100 people send their final answers at once for 10 places, and
/// exactly 10 are paid; the 90 others are shown 受付終了 and paid nothing. On the file store, and on
/// PostgreSQL through two instances.
struct QuotaFlowTests {
  static let tenPlaces = Survey(
    id: SurveyID("ten"), title: "先着10名の調査", description: "定員10名", category: .food,
    questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
    reward: 40, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil, quota: Quota(target: 110, collected: 100)
  )

  /// 100 users, each with a session and the form's token, send their answers at once through
  /// `clients` in turn; returns where each was sent, and what each then sees at that address.
  static func hundredSubmitters(_ clients: [any TestClientProtocol]) async throws -> (complete: Int, closed: Int) {
    var browsers: [(Browser, String)] = []
    for number in 0..<100 {
      var browser = Browser(client: clients[number % clients.count])
      try await browser.get("/surveys")
      browsers.append((browser, try await browser.csrf(from: "/surveys/ten")))
    }
    let locations = try await withThrowingTaskGroup(of: (String, String).self) { group in
      for (browser, csrf) in browsers {
        group.addTask {
          var browser = browser
          let response = try await browser.post("/surveys/ten/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=4")
          #expect(response.status == .seeOther)
          let location = response.headers[.location] ?? ""
          return (location, try await browser.get(location).html)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    let complete = locations.filter { $0.0 == "/surveys/ten/complete" && $0.1.contains("40pt") }.count
    let closed = locations.filter { $0.0 == "/surveys/ten" && $0.1.contains("このアンケートの受付は終了しました") }.count
    return (complete, closed)
  }

  @Test func aHundredSubmittersForTenPlacesOnFiles() async throws {
    let server = try TestServer()
    try await server.application(catalog: [Self.tenPlaces]).test(.router) { client in
      let (complete, closed) = try await Self.hundredSubmitters([client])
      #expect(complete == 10)
      #expect(closed == 90)
      var visitor = Browser(client: client)
      let list = try await visitor.get("/surveys").html
      #expect(list.contains("受付を終了したアンケート") && list.contains("受付終了"))
    }
    // The places and the paid answers agree.
    let places = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("quotas").path)
    #expect(places.filter { $0.hasPrefix("p~ten~") }.count == 10)
    #expect(try await Quotas(FileBackend(server.dataDirectory)).taken(Self.tenPlaces.id) == 10)
    let states = try server.files().filter { $0.key.hasSuffix(".json") }.values.map { try SavedState.state(from: $0) }
    #expect(states.filter { $0.progress.answer(to: Self.tenPlaces.id)?.isCompleted == true }.count == 10)
    #expect(states.reduce(0) { $0 + $1.progress.ledger.balance.value } == 400)
  }

  @Test(.enabled(if: TestDatabase.enabled, TestDatabase.notInstalled))
  func aHundredSubmittersForTenPlacesAcrossTwoInstances() async throws {
    let database = try await TestDatabase.make()
    let server = try TestServer()
    let one = try await server.application(catalog: [Self.tenPlaces], databaseURL: database.url)
    let two = try await server.application(catalog: [Self.tenPlaces], databaseURL: database.url)
    try await one.test(.router) { first in
      try await two.test(.router) { second in
        let (complete, closed) = try await Self.hundredSubmitters([first, second])
        #expect(complete == 10)
        #expect(closed == 90)
      }
    }
    #expect(try await Quotas(PostgresBackend(database)).taken(Self.tenPlaces.id) == 10)
    #expect(try await database.query("SELECT count(*) FROM quotas WHERE starts_with(id, 'p~ten~')").first?.decode(Int.self) == 10)
    let states = try await database.query("SELECT record FROM users").map { try SavedState.state(from: Data(try $0.decode(String.self).utf8)) }
    #expect(states.filter { $0.progress.answer(to: Self.tenPlaces.id)?.isCompleted == true }.count == 10)
  }
}
