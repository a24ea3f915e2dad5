import Baton
import BatonCommandLine
import BatonStore
import Foundation

/// Waits until live workers serve every one of `procedures` (`baton workers --wait-for`), polling the
/// store until a deadline: a script starts its workers, waits, and only then submits.
struct WorkerWaiter {
    let workers: any RunAccess
    let procedures: [String]
    /// As `baton workers --within`: nil counts a worker live by its own heartbeat interval.
    let within: Double?
    let timeout: Double

    /// The live workers once they serve every procedure, or the procedures still unserved at the deadline.
    func wait() async throws -> (workers: [WorkerRow], missing: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let workers = try await self.workers.liveWorkers(within: within)
            let missing = Self.missing(procedures, servedBy: workers)
            if missing.isEmpty || Date() >= deadline { return (workers, missing) }
            // Polling, with the deadline above: a heartbeat is a row update, which sends no notification.
            try await Task.sleep(for: .seconds(min(0.1, max(0, deadline.timeIntervalSinceNow))))
        }
    }

    /// The procedures no worker serves, in the order given; `baton.delay` needs no worker (the coordinator runs it).
    static func missing(_ procedures: [String], servedBy workers: [WorkerRow]) -> [String] {
        let served = Set(workers.flatMap(\.procedures))
        return procedures.filter { $0 != DelayProcedure.name && $0 != SignalSpec.procedureName && !served.contains($0) }
    }
}
