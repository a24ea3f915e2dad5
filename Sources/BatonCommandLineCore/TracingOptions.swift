import ArgumentParser
import Foundation

/// `--otlp-endpoint URL` of `baton submit`, `baton coordinator` and `baton worker`: export traces
/// as OTLP over HTTP (protobuf) to a collector. Off when neither it nor `$OTEL_EXPORTER_OTLP_ENDPOINT` is set.
public struct TracingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Export traces as OTLP over HTTP (protobuf) to this collector, e.g. http://127.0.0.1:4318 "
                + "(default: $OTEL_EXPORTER_OTLP_ENDPOINT; off when neither is set).",
            valueName: "url"))
    public var otlpEndpoint: String?

    public init() {}

    /// The environment variable read when the flag is not given.
    public static let environmentVariable = "OTEL_EXPORTER_OTLP_ENDPOINT"

    /// The collector's base URL (spans go to its `/v1/traces`), nil when tracing is off; a bad one
    /// is a usage error (exit 2) naming where it came from.
    public func endpoint(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        let given: (value: String, source: String)
        if let otlpEndpoint {
            given = (otlpEndpoint, "--otlp-endpoint")
        } else if let value = environment[Self.environmentVariable], !value.isEmpty {
            given = (value, "$" + Self.environmentVariable)
        } else {
            return nil
        }
        guard Self.isValid(given.value) else {
            throw CLIFailure(
                "\(given.source): '\(given.value)' is not an http:// or https:// URL with a host, e.g. http://127.0.0.1:4318", exitCode: 2)
        }
        return given.value
    }

    /// An absolute http or https URL with a host, and no query or fragment (a path is kept as a prefix).
    static func isValid(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { return false }
        return true
    }
}
