import ArgumentParser

/// Serves PointApp. The web server arrives with the web issue; until then this says so.
@main
struct PointAppCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pointapp",
    abstract: "PointApp: a point-earning survey app served as plain HTML."
  )

  func run() throws {
    print("PointApp: the web server is not there yet; the runtime and its tests are (swift test).")
  }
}
