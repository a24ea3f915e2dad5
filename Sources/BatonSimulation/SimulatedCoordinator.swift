import BatonCoordinator
import Foundation

/// One coordinator process of the simulated cluster: the real coordinator (`SteppedCoordinator`),
/// its store and broker connections the twins'. A crash ends the process; a restart is a new one.
final class SimulatedCoordinator: SimulatedProcess {
    let index: Int
    private(set) var generation = 0
    private(set) var process: SteppedCoordinator?
    /// Steps to wait before the process (re)starts, or runs again after a pause.
    var downFor = 0
    var pausedFor = 0
    private let make: (Int, Int) -> SteppedCoordinator

    init(index: Int, make: @escaping (Int, Int) -> SteppedCoordinator) {
        self.index = index
        self.make = make
        start()
    }

    var name: String { "coordinator-\(index).\(generation)" }
    var isUp: Bool { process != nil }

    func start() {
        generation += 1
        process = make(index, generation)
    }

    /// The process dies: its sessions and connections end.
    func crash(restartAfter steps: Int) {
        process?.crash()
        process = nil
        downFor = steps
    }
}
