import BatonCommandLineCore
import OTel

extension CLILogging {
    /// Logging to stderr with the `trace_id` and `span_id` of the span a line is logged in (`baton`'s commands).
    public static func bootstrap() throws { try bootstrap(metadataProvider: OTel.makeLoggingMetadataProvider()) }
}
