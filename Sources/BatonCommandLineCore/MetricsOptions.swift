import ArgumentParser
import Baton
import Foundation

/// `--metrics HOST:PORT` of `baton coordinator` and `baton worker`: Prometheus text on `/metrics`,
/// liveness on `/healthz`, readiness on `/readyz`. Off by default.
public struct MetricsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve /metrics (Prometheus), /healthz and /readyz over HTTP on HOST:PORT, e.g. 127.0.0.1:9464 (off by default).",
            valueName: "host:port"))
    public var metrics: String?

    public init() {}

    /// The address to listen on, nil when off; a bad one is a usage error (exit 2).
    public func address() throws -> ListenAddress? {
        guard let metrics else { return nil }
        do { return try ListenAddress(parsing: metrics, flag: "--metrics") } catch { throw CLIFailure(error.description, exitCode: 2) }
    }
}
