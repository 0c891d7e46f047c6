import ArgumentParser
import Foundation
import Hummingbird
import Logging

/// A page of fixed bytes, served as `pointapp` serves its pages (Hummingbird, tasks on NIO's
/// event loops) with nothing behind it: no session, state, store, template or middleware. It is
/// the most page views a second this machine's HTTP stack gives for a page of that size, whatever
/// our code does; `Scripts/benchmark.py` measures it beside P1-peer.
struct FixedPage: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fixed-page", abstract: "Serve a file's bytes as GET /surveys until stopped (the ceiling of a page view)."
  )

  @Option(help: "The page to serve.") var file: String
  @Option(help: "The port on 127.0.0.1.") var port: Int

  func run() async throws {
    let page = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: file)))
    let router = Router()
    router.get("/surveys") { _, _ in
      Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: page))
    }
    var logger = Logger(label: "fixed-page")
    logger.logLevel = .error
    try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
      .runService()
  }
}
