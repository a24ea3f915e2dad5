import Foundation
import Logging

/// Sends logs to stderr at the level in $BATON_LOG_LEVEL (default info). Call once.
enum CLILogging {
    nonisolated(unsafe) private static var done = false
    static func bootstrap() {
        guard !done else { return }
        done = true
        let level = ProcessInfo.processInfo.environment["BATON_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
