import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PointAppWeb

/// Serves PointApp. Every option also reads an environment variable; flags win.
@main
struct PointAppCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pointapp",
    abstract: "PointApp: a point-earning survey app served as plain HTML."
  )

  @Option(help: "Address to listen on (POINTAPP_HOST).")
  var hostname = ProcessInfo.processInfo.environment["POINTAPP_HOST"] ?? "127.0.0.1"

  @Option(help: "Port to listen on (POINTAPP_PORT).")
  var port = Int(ProcessInfo.processInfo.environment["POINTAPP_PORT"] ?? "") ?? 8080

  @Option(help: "Folder for users' data, created on first run (POINTAPP_DATA).")
  var data = ProcessInfo.processInfo.environment["POINTAPP_DATA"] ?? "data"

  @Option(help: "Templates folder (POINTAPP_TEMPLATES).")
  var templates = ProcessInfo.processInfo.environment["POINTAPP_TEMPLATES"] ?? "Templates"

  @Option(name: .customLong("public"), help: "Static files folder (POINTAPP_PUBLIC).")
  var publicFolder = ProcessInfo.processInfo.environment["POINTAPP_PUBLIC"] ?? "Public"

  @Option(help: "trace, debug, info, notice, warning, error or critical (LOG_LEVEL).")
  var logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"] ?? "info"

  @Option(help: "text, or json for log shippers: one object per line (POINTAPP_LOG_FORMAT).")
  var logFormat = ProcessInfo.processInfo.environment["POINTAPP_LOG_FORMAT"] ?? "text"

  @Option(help: "Serve Prometheus metrics at /metrics on this port, never the public one; off unless set (POINTAPP_METRICS_PORT).")
  var metricsPort = Int(ProcessInfo.processInfo.environment["POINTAPP_METRICS_PORT"] ?? "")

  @Option(help: "Addresses of proxies trusted to name the client in X-Forwarded-For, comma-separated (POINTAPP_TRUSTED_PROXIES).")
  var trustedProxies = ProcessInfo.processInfo.environment["POINTAPP_TRUSTED_PROXIES"] ?? ""

  @Flag(help: "Mark the session cookie Secure, for serving behind HTTPS (POINTAPP_SECURE_COOKIES=1).")
  var secureCookies = ProcessInfo.processInfo.environment["POINTAPP_SECURE_COOKIES"] == "1"

  func run() async throws {
    var configuration = AppConfiguration()
    configuration.hostname = hostname
    configuration.port = port
    configuration.dataDirectory = URL(fileURLWithPath: data)
    configuration.templatesDirectory = URL(fileURLWithPath: templates)
    configuration.publicDirectory = URL(fileURLWithPath: publicFolder)
    configuration.secureCookies = secureCookies
    configuration.trustedProxies = Set(trustedProxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    guard let level = Logger.Level(rawValue: logLevel) else {
      throw ValidationError("unknown log level \(logLevel)")
    }
    configuration.logLevel = level
    switch logFormat {
    case "text": break
    case "json": LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
    default: throw ValidationError("unknown log format \(logFormat): text or json")
    }
    if let metricsPort {
      guard metricsPort != port else { throw ValidationError("--metrics-port must not be the public port") }
      configuration.metricsPort = metricsPort
    }
    let registry = configuration.metricsPort.map { _ in MetricsExport.bootstrap() }
    // Runs until SIGTERM or SIGINT, then finishes the requests in flight and stops.
    try await buildApplication(configuration, metrics: registry).runService()
  }
}
