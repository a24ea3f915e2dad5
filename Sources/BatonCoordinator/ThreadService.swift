import Baton
import ServiceLifecycle

/// The body of a `Service` that works on a thread of its own (`DedicatedThread`, for blocking libpq
/// calls) and stops when the service group shuts down gracefully or the task is cancelled: `body`
/// gets the `StopSignal` it waits on between its turns, and returns once it is set.
enum ThreadService {
    static func run(name: String, _ body: @escaping @Sendable (StopSignal) -> Void) async throws {
        let stop = StopSignal()
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await DedicatedThread.run(name: name) { body(stop) }
            } onGracefulShutdown: {
                stop.set()
            }
        } onCancel: {
            stop.set()
        }
    }
}
