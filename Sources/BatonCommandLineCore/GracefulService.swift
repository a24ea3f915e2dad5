/// A long-running part of a worker process that stops gracefully: `shutDown()` asks it to finish
/// what it holds (a worker drains, a supervisor stops its processes), after which `run()` returns.
/// `GracefulServices` runs them; the lean worker's stand-in for swift-service-lifecycle's `Service`,
/// so a plain worker builds neither it nor swift-async-algorithms.
public protocol GracefulService: Sendable {
    func run() async throws
    /// Asks `run()` to finish; called once, from another task, possibly before `run()` started or after it returned.
    func shutDown() async
}
