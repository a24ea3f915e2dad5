import Baton
import Logging
import ServiceLifecycle

/// The coordinator as a long-running service: on graceful shutdown it finishes
/// the batch in flight and returns. It throws a `CoordinatorStop` when it stopped on an error
/// that retrying cannot help (a configuration error at start-up, a PostgreSQL error of no known
/// class), so the process ends with that line and the other coordinators take its partitions.
public struct Coordinator: Service {
    public let configuration: CoordinatorConfiguration

    public init(configuration: CoordinatorConfiguration) { self.configuration = configuration }

    public func run() async throws {
        let loop = CoordinatorLoop(configuration: configuration)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                if let stopped = try await DedicatedThread.run(name: "baton-coordinator", { loop.run() }) { throw stopped }
            } onGracefulShutdown: {
                loop.stop.set()
            }
        } onCancel: {
            loop.stop.set()
        }
    }
}
