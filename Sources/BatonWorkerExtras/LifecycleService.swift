import BatonCommandLineCore
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` (the metrics server, the trace exporter) run as one of a
/// worker's `GracefulService`s: in a group of its own, whose graceful shutdown `shutDown()` starts.
struct LifecycleService: GracefulService {
    private let group: ServiceGroup

    init(_ service: any Service, logger: Logger) {
        group = ServiceGroup(configuration: .init(services: [service], logger: logger))
    }

    func run() async throws { try await group.run() }

    func shutDown() async { await group.triggerGracefulShutdown() }
}
