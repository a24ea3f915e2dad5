import ArgumentParser
import Baton
import BatonHTTP
import CoreMetrics
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// `--metrics HOST:PORT` of `baton coordinator` and `baton worker`: Prometheus text on `/metrics`,
/// liveness on `/healthz`, readiness on `/readyz`. Off by default.
struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve /metrics (Prometheus), /healthz and /readyz over HTTP on HOST:PORT, e.g. 127.0.0.1:9464 (off by default).",
            valueName: "host:port"))
    var metrics: String?

    /// The address to listen on, nil when off; a bad one is a usage error (exit 2).
    func address() throws -> ListenAddress? {
        guard let metrics else { return nil }
        do { return try ListenAddress(parsing: metrics, flag: "--metrics") } catch { throw CLIFailure(error.description, exitCode: 2) }
    }
}

/// One service's metrics: its own registry (nothing shared between services), the swift-metrics
/// factory over it, and the HTTP server that serves it with the service's health.
struct MetricsEndpoint {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    let server: any Service

    init(address: ListenAddress, health: ServiceHealth, logger: Logger) {
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
