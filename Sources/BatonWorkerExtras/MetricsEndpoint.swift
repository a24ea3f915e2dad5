import Baton
import BatonCommandLineCore
import BatonHTTP
import CoreMetrics
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// One service's metrics: its own registry (nothing shared between services), the swift-metrics
/// factory over it, and the HTTP server that serves it with the service's health.
public struct MetricsEndpoint {
    public let registry = PrometheusCollectorRegistry()
    public let factory: PrometheusMetricsFactory
    public let server: any Service

    public init(address: ListenAddress, health: ServiceHealth, logger: Logger) {
        factory = BatonPrometheus.factory(registry: registry)
        server = NamedServer(
            address: address,
            inner: BatonHTTPServer.metricsApplication(address: address, registry: registry, health: health, logger: logger) { port in
                logger.info("serving /metrics, /healthz and /readyz on \(ListenAddress(host: address.host, port: port))")
            })
        Self.bootstrapOnce(factory)
    }

    nonisolated(unsafe) private static var bootstrapped = false
    /// Procedures and libraries that record through swift-metrics' global system land on the same
    /// `/metrics`. swift-metrics allows one bootstrap per process: the first endpoint's factory wins.
    private static func bootstrapOnce(_ factory: PrometheusMetricsFactory) {
        guard !bootstrapped else { return }
        bootstrapped = true
        MetricsSystem.bootstrap(factory)
    }
}

/// The HTTP server, whose failure (a port in use) names the flag and address: `--metrics 127.0.0.1:9464: cannot serve: …`.
private struct NamedServer: Service {
    let address: ListenAddress
    let inner: any Service

    func run() async throws {
        do { try await inner.run() } catch { throw CLIFailure("--metrics \(address): cannot serve: \(error)") }
    }
}
