import Foundation
import Logging

/// The simulated processes log nowhere: a simulation's output is its trace alone. With
/// `BATON_SIM_LOG` set to a level (`debug`, `info`...), they log to standard error at that level,
/// to see what a failing seed's processes did.
enum QuietLogger {
    static func make(_ label: String) -> Logger {
        guard let name = ProcessInfo.processInfo.environment["BATON_SIM_LOG"], let level = Logger.Level(rawValue: name) else {
            return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }
}
