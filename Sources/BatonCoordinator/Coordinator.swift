import Baton
import Logging
import ServiceLifecycle

/// The coordinator as a long-running service: on graceful shutdown it finishes
/// the batch in flight and returns.
public struct Coordinator: Service {
    public let configuration: CoordinatorConfiguration

    public init(configuration: CoordinatorConfiguration) { self.configuration = configuration }

    public func run() async throws {
        let loop = CoordinatorLoop(configuration: configuration)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await DedicatedThread.run(name: "baton-coordinator") { loop.run() }
            } onGracefulShutdown: {
                loop.stop.set()
            }
        } onCancel: {
            loop.stop.set()
        }
    }
}
