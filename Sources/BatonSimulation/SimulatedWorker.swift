import BatonWorker
import Foundation

/// One worker process of the simulated cluster: the real consumer and publisher (`SteppedWorker`),
/// its broker connections the twin's, its procedures run by a `SimulatedExecutor`.
final class SimulatedWorker: SimulatedProcess {
    let index: Int
    private(set) var generation = 0
    private(set) var process: SteppedWorker?
    private(set) var executor: SimulatedExecutor?
    var downFor = 0
    var pausedFor = 0
    private let make: (Int, Int) -> (SteppedWorker, SimulatedExecutor)

    init(index: Int, make: @escaping (Int, Int) -> (SteppedWorker, SimulatedExecutor)) {
        self.index = index
        self.make = make
        start()
    }

    var name: String { "worker-\(index).\(generation)" }
    var isUp: Bool { process != nil }

    func start() {
        generation += 1
        (process, executor) = make(index, generation)
    }

    /// The process dies: its attempts vanish, its connections close (the broker gives back what it
    /// had not acked), nothing more is reported.
    func crash(restartAfter steps: Int) {
        executor?.abandonAll()
        process?.crash()
        process = nil
        executor = nil
        downFor = steps
    }
}
