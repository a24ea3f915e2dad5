import Foundation
import Logging

/// Sends logs to stderr at the level in $BATON_LOG_LEVEL (default info). Call once. With a
/// `metadataProvider` (`BatonWorkerExtras` gives swift-otel's), a line logged inside a span
/// (`--otlp-endpoint`) carries its `trace_id` and `span_id`.
public enum CLILogging {
    nonisolated(unsafe) private static var done = false
    /// Throws, as a usage error, if $BATON_LOG_LEVEL names no level.
    public static func bootstrap(metadataProvider: Logger.MetadataProvider?) throws {
        guard !done else { return }
        let level = try level(ProcessInfo.processInfo.environment["BATON_LOG_LEVEL"])
        done = true
        LoggingSystem.bootstrap(
            { label, provider in
                var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: metadataProvider)
    }

    /// The level `text` names (in any case), info if unset or empty.
    public static func level(_ text: String?) throws -> Logger.Level {
        guard let text, !text.isEmpty else { return .info }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let allowed = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw CLIFailure("BATON_LOG_LEVEL must be one of \(allowed); got '\(text)'", exitCode: 2)
        }
        return level
    }
}
