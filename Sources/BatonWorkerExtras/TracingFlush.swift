import Foundation
import Logging
import ServiceLifecycle

/// The trace exporter of a command that is not a long-running service (`baton submit`): runs it
/// in the background, and `finish` sends what is left before the command exits.
public final class TracingFlush: @unchecked Sendable {
    // Safe: `group` and `logger` are set once in `init`; `done` is a semaphore.
    private let group: ServiceGroup
    private let logger: Logger
    private let done = DispatchSemaphore(value: 0)

    public init(_ endpoint: TracingEndpoint, logger: Logger) {
        group = ServiceGroup(configuration: .init(services: [endpoint.service], logger: logger))
        self.logger = logger
        let group = group
        let done = done
        Task.detached {
            do { try await group.run() } catch { logger.warning("trace exporter stopped: \(error)") }
            done.signal()
        }
    }

    /// Exports the spans ended so far and stops the exporter; gives up after `timeout` seconds (an
    /// unreachable collector must not hold the command).
    public func finish(timeout: Double = 5) {
        let group = group
        Task.detached { await group.triggerGracefulShutdown() }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            logger.warning("the trace exporter did not finish within \(timeout) s: spans not yet sent are lost")
        }
    }
}
