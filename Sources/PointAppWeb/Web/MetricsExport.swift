import Hummingbird
import Metrics
import Prometheus

/// Prometheus as the metrics backend, read on a port of its own (`--metrics-port`), never the
/// public one.
public enum MetricsExport {
  /// Makes Prometheus the process's metrics backend, for the libraries' metrics (Hummingbird's
  /// requests), and returns the registry it fills. Once per process: `MetricsSystem` takes one
  /// bootstrap.
  public static func bootstrap() -> PrometheusCollectorRegistry {
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(factory(registry))
    return registry
  }

  /// A factory of metrics in `registry`.
  static func factory(_ registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
    var factory = PrometheusMetricsFactory(registry: registry)
    // Hummingbird names its metrics with dots (`hb.requests`, `http.route`); Prometheus takes
    // letters, digits and underscores.
    factory.nameAndLabelSanitizer = { name, labels in
      (prometheusName(name), labels.map { (prometheusName($0.0), $0.1) })
    }
    return factory
  }

  static func prometheusName(_ name: String) -> String {
    String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
  }

  /// `GET /metrics`: every metric in Prometheus's text format.
  static func router(_ registry: PrometheusCollectorRegistry) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/metrics") { _, _ in
      var bytes: [UInt8] = []
      registry.emit(into: &bytes)
      return Response(
        status: .ok,
        headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: bytes))
      )
    }
    return router
  }
}
