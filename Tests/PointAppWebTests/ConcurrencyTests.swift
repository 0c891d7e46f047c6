import Foundation
import HummingbirdTesting
import PointApp
import PointAppWeb
import Testing

/// Many requests of one user at once: each survey pays once, every different survey pays, and the
/// balance is the sum of the ledger.
struct ConcurrencyTests {
  static let catalog: [Survey] = (0..<20).map { number in
    Survey(
      id: SurveyID("s\(number)"), title: "調査\(number)", description: "説明", category: .food,
      questions: [SurveyQuestion(id: QuestionID("satisfaction"), text: "満足度は？", kind: .rating)],
      reward: PointAmount(10 + number)!, estimatedMinutes: 1, publishedAt: noon - 86_400, expiresAt: nil
    )
  }

  @Test func fiftySimultaneousSubmissionsOfOneSurveyPayOnce() async throws {
    let server = try TestServer()
    try await server.application(catalog: Self.catalog).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/s0")
      let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<50 {
          group.addTask { [browser] in
            var copy = browser
            return Int(try await copy.post("/surveys/s0/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=3").status.code)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(statuses == Array(repeating: 303, count: 50))
      let state = try savedState(server)
      #expect(state.progress.ledger.count == 1)
      #expect(state.progress.ledger.balance == 10)
    }
  }

  @Test func simultaneousDifferentSurveysAllPay() async throws {
    let server = try TestServer()
    try await server.application(catalog: Self.catalog).test(.router) { client in
      var browser = Browser(client: client)
      try await browser.get("/surveys")
      let csrf = try await browser.csrf(from: "/surveys/s0")
      try await withThrowingTaskGroup(of: Void.self) { group in
        for survey in Self.catalog {
          group.addTask { [browser] in
            var copy = browser
            let response = try await copy.post("/surveys/\(survey.id.rawValue)/answers", form: "csrf=\(csrf)&q%5Bsatisfaction%5D=3")
            #expect(response.status == .seeOther)
          }
        }
        try await group.waitForAll()
      }
      let state = try savedState(server)
      #expect(Set(state.progress.answered.keys) == Set(Self.catalog.map(\.id)))
      let expected = Self.catalog.reduce(0) { $0 + $1.reward.value }
      #expect(state.progress.ledger.balance.value == expected)
      #expect(state.progress.ledger.recent.reduce(0) { $0 + $1.amount.value } == expected)
      #expect(Set(state.progress.ledger.recent.map(\.id)).count == Self.catalog.count)
    }
  }

  /// Views that change nothing read the user's file without the user's lock, so they do not queue
  /// behind each other or behind a slow save; the day's first view, which records a visit, saves.
  @Test func aViewThatChangesNothingDoesNotWaitForTheUsersLock() async throws {
    let server = try TestServer()
    // A guest from before session records: their cookie names their data, whose lock is held below.
    let user = UserID("0123456789abcdef0123456789abcdef")!
    try await server.users.replace(user, with: AppFeature.State())
    try await server.application(catalog: Self.catalog).test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      try await browser.get("/surveys")
      let visited = try savedState(server)
      #expect(visited.progress.streak.lastVisit == Day(noon, in: .tokyo))

      let (acquired, holding) = AsyncStream<Void>.makeStream()
      let (release, releasing) = AsyncStream<Void>.makeStream()
      let holder = Task {
        try await server.users.update(user) { _ in
          holding.yield()
          for await _ in release { break }
          return (nil, ())
        }
      }
      for await _ in acquired { break }
      let watchdog = Task {
        do { try await Task.sleep(for: .seconds(10)) } catch { return false }
        releasing.finish()
        return true
      }
      let page = try await browser.get("/surveys")
      watchdog.cancel()
      #expect(page.status == .ok)
      #expect(await watchdog.value == false, "the view waited for the lock")
      releasing.finish()
      try await holder.value
      #expect(try savedState(server) == visited)
    }
  }

  func savedState(_ server: TestServer) throws -> AppFeature.State {
    let files = try server.files().filter { $0.key.hasSuffix(".json") }
    #expect(files.count == 1)
    return try SavedState.state(from: try #require(files.values.first))
  }
}

/// Another process writing a user's file (two servers on one data folder) is always seen: a
/// decoded state is reused only while the file holds the same bytes.
struct SharedFolderTests {
  @Test func aFileWrittenByAnotherProcessIsReadAgain() async throws {
    let server = try TestServer()
    let user = UserID("0123456789abcdef0123456789abcdef")!
    try await server.users.replace(user, with: AppFeature.State())  // a guest whose cookie named their file
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: try await server.guestCookie(for: user))
      let before = try await browser.get("/points").html

      var other = AppFeature.State()
      var progress = UserProgress()
      progress.recordAnswer(to: testCatalog[1], with: [], id: TransactionID(UUID()), at: noon, on: Day(noon, in: .tokyo))
      other.progress = progress
      let otherProcess = UserStates(try FileBackend(server.dataDirectory))
      try await otherProcess.replace(user, with: other)

      let after = try await browser.get("/points").html
      #expect(!before.contains("スイーツ調査"))
      #expect(after.contains("アンケート回答「スイーツ調査」"))
    }
  }
}
