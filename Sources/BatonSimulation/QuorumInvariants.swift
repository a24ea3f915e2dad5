import Baton
import BatonAMQP
import Foundation

/// The guarantees of quorum queues the simulator checks in a quorum run, beside `InvariantChecker`'s
/// own: the queues count every delivery and stop one at their `x-delivery-limit`, workers start the
/// highest band they hold first, and a task that kills its workers ends in the dead-letter queue with
/// its count, its node failed with a clear error. Each check returns the guarantees broken, one line each.
struct QuorumInvariants {
    /// The workers' `--delivery-limit`.
    let workerLimit: Int
    /// Deliveries seen per message (by id, every copy of it).
    private var deliveries: [Int: Int] = [:]
    /// Starts while the worker held a task of another band ready to run: the choices the band check judged.
    private(set) var bandChoices = 0

    init(workerLimit: Int) { self.workerLimit = workerLimit }

    /// The most deliveries a task may have: its queue dead-letters it when it comes back once more.
    static var deliveryBound: Int { QueueType.deliveryLimit + 1 }

    /// A delivery from a quorum task queue: it carries the queue's count of the times it came back
    /// before (none on its first delivery; on the Nth, at least N - 1: every delivery after the first
    /// follows a return, and copies given out again while another is held can come back in any order),
    /// and it is not delivered beyond the queue's limit.
    mutating func delivered(_ delivery: MemoryDelivery) -> [String] {
        guard delivery.queue.hasPrefix(BatonTopology.tasksExchange) else { return [] }
        let message = delivery.message
        let seen = (deliveries[message.id] ?? 0) + 1
        deliveries[message.id] = seen
        var broken: [String] = []
        let counted = seen == 1 ? message.deliveryCount == nil : (message.deliveryCount ?? 0) >= seen - 1
        if !counted {
            broken.append(
                "task message \(message.id) in \(delivery.queue): delivery \(seen) carries x-delivery-count "
                    + "\(message.deliveryCount.map(String.init) ?? "none"): the queue does not count its returns")
        }
        if seen > Self.deliveryBound {
            broken.append(
                "task message \(message.id) in \(delivery.queue) delivered \(seen) times, beyond its queue's x-delivery-limit \(QueueType.deliveryLimit)"
            )
        }
        return broken
    }

    /// A task a worker published again: with quorum queues a worker never republishes to count a
    /// delivery (the queue counts), so no copy carries a count of the worker's.
    func confirmed(_ message: MemoryMessage) -> [String] {
        guard message.exchange == BatonTopology.tasksExchange, !message.publisher.hasPrefix("coordinator"), let deliveries = message.deliveries,
            let task = try? TaskDispatch(decoding: message.body)
        else { return [] }
        return [
            "run \(task.runID) node \(task.key) attempt \(task.attempt): \(message.publisher) republished its task counting \(deliveries) "
                + "deliveries itself, though the quorum queue counts them (x-delivery-count)"
        ]
    }

    /// A worker started `started`: it holds no task of a higher band that is ready to run (taken and
    /// not done with, its node still queued or running in that attempt in the store).
    mutating func started(_ started: MemoryHeldTask, holding held: [MemoryHeldTask], worker: String, store: MemoryStore) -> [String] {
        guard let task = started.task else { return [] }
        let others = held.filter { other in
            guard !other.started, other.band != started.band, let waiting = other.task else { return false }
            guard store.run(waiting.runID)?.status.isTerminal == false, let row = store.node(waiting.key, ofRun: waiting.runID) else { return false }
            return row.attempts == waiting.attempt && (row.status == .queued || row.status == .running)
        }
        if !others.isEmpty { bandChoices += 1 }
        guard let first = others.first(where: { $0.band > started.band }), let waiting = first.task else { return [] }
        return [
            "\(worker) started run \(task.runID) node \(task.key) attempt \(task.attempt) (priority \(started.message.priority ?? 0), band "
                + "\(started.band.lowest)+) while it held node \(waiting.key) attempt \(waiting.attempt) of run \(waiting.runID) "
                + "(priority \(first.message.priority ?? 0), band \(first.band.lowest)+), ready to run"
        ]
    }

    /// At the end: each task that kills its worker (`SimulationGraph.poison`) was dead-lettered with
    /// its count, within the delivery limits, and its node failed saying so.
    func finish(store: MemoryStore, runID: String, graph: SimulationGraph) -> [String] {
        graph.poison.compactMap { key in
            guard let row = store.node(key, ofRun: runID) else { return "run \(runID) poison node \(key) is missing" }
            let error = row.error ?? ""
            let lowest = min(workerLimit, Self.deliveryBound)
            guard row.status == .failed, let count = Self.deliveries(in: error), count >= lowest, count <= Self.deliveryBound else {
                return "run \(runID) poison node \(key) ended \(row.status.rawValue) with error '\(error)', not dead-lettered after "
                    + "\(lowest) to \(Self.deliveryBound) deliveries (workers' --delivery-limit \(workerLimit), x-delivery-limit \(QueueType.deliveryLimit))"
            }
            return nil
        }
    }

    /// N in the coordinator's "dead-lettered after N deliveries" error, if it says so.
    static func deliveries(in error: String) -> Int? {
        guard let range = error.range(of: "dead-lettered after ") else { return nil }
        return Int(error[range.upperBound...].prefix { $0.isNumber })
    }
}
