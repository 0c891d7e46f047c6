import Foundation
import HummingbirdTesting
@testable import PointAppWeb
import Testing

/// What a data folder holds, as a maintainer reads it.
struct DataFolderTests {
  /// Every file named `.json` is JSON, which `jq` and every JSON tool read: users' states and
  /// their archives, and every record (`{"version":n,"record":…}`), after a user registered,
  /// exchanged points with the built-in issuer (its codes and their reservations) and answered.
  @Test func everyFileNamedJSONIsJSON() async throws {
    let server = try TestServer()
    let (_, seeded) = try await PendingExchangeTests.seed(server, users: server.users, sessions: try server.sessionRecords())
    try await server.application().test(.router) { client in
      var browser = Browser(client: client, cookie: seeded)
      try await browser.registerVerified(in: try FileBackend(server.dataDirectory), data: server.dataDirectory)
      let token = try await browser.csrf(from: "/exchange/digital-gift-300")
      let ledger = try await browser.hidden("ledger", from: "/exchange/digital-gift-300")
      _ = try await browser.post("/exchange/digital-gift-300", form: "csrf=\(token)&ledger=\(ledger)")
      try await eventually { try await browser.get("/exchange/history/1").html.contains("交換完了") }
      let answer = try await browser.csrf(from: "/surveys/breakfast")
      _ = try await browser.post("/surveys/breakfast/answers", form: "csrf=\(answer)&q%5Bfrequency%5D=daily&q%5Bfoods%5D=rice&q%5Bsatisfaction%5D=4")
    }
    var folders = Set<String>()
    for path in FileManager.default.subpaths(atPath: server.dataDirectory.path) ?? [] where path.hasSuffix(".json") {
      let data = try Data(contentsOf: server.dataDirectory.appendingPathComponent(path))
      #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(path) is not JSON: \(String(decoding: data.prefix(80), as: UTF8.self))")
      folders.insert(String(path.split(separator: "/")[0]))
    }
    #expect(folders.isSuperset(of: ["users", "sessions", "accounts", "gift-codes"]), "\(folders)")
  }
}
