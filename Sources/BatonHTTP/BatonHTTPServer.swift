import Baton
import Foundation
import Hummingbird
import Logging
import Prometheus

/// Baton's HTTP server (Hummingbird): `GET /metrics` (Prometheus text of `registry`), `GET /healthz`
/// (liveness) and `GET /readyz` (readiness) from `health`. Other servers (the dashboard) add their
/// routes with `routes` and get the same endpoints. The result is a swift-service-lifecycle
/// `Service`: run it in the same `ServiceGroup` as the coordinator or worker it reports on.
public enum BatonHTTPServer {
    /// The router with the operator endpoints; add routes to it before building the application.
    public static func router(registry: PrometheusCollectorRegistry, health: ServiceHealth) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("healthz") { _, _ -> Response in text(health.snapshot().liveness(now: Date())) }
        router.get("readyz") { _, _ -> Response in text(health.snapshot().readiness()) }
        return router
    }

    /// An application serving `router` on `address`. `onRunning` is called with the port once it listens.
    public static func application(
        _ router: Router<BasicRequestContext>, address: ListenAddress, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router, configuration: .init(address: .hostname(address.host, port: address.port), serverName: "baton"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? address.port) }, logger: logger)
    }

    /// The operator endpoints alone on `address` (what `--metrics` starts).
    public static func metricsApplication(
        address: ListenAddress, registry: PrometheusCollectorRegistry, health: ServiceHealth, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        application(router(registry: registry, health: health), address: address, logger: logger, onRunning: onRunning)
    }

    private static func text(_ verdict: HealthVerdict) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: HTTPResponse.Status(code: verdict.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: verdict.body)))
    }
}
