import Logging

/// The simulated processes log nowhere: a simulation's output is its trace alone.
enum QuietLogger {
    static func make(_ label: String) -> Logger { Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
}
