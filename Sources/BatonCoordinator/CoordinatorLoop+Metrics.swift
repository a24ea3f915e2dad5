import Baton
import BatonAMQP
import Foundation

/// A task queue by pool and procedure.
struct QueueName: Hashable, Sendable {
    let pool: String
    let procedure: String
}

/// The coordinator's metrics that need I/O: the task queues' depths, read from the broker.
extension CoordinatorLoop {
    /// The queues a worker consumes from are watched too, so a pool's backlog shows before this coordinator published to it.
    func watch(_ beat: WorkerHeartbeat) {
        guard !beat.stopping else { return }
        for pool in beat.pools {
            for procedure in beat.procedures { watchedQueues.insert(QueueName(pool: pool, procedure: procedure)) }
        }
    }

    /// Reads every watched queue's message count (one queue.declare each) into `baton_tasks_waiting`.
    func readQueueDepths(_ metrics: CoordinatorMetrics) throws {
        lastDepthReading = Date()
        guard let publisher else { return }
        for queue in watchedQueues {
            let count = try BatonTopology.taskQueueDepth(pool: queue.pool, procedure: queue.procedure, on: publisher)
            metrics.tasksWaiting(pool: queue.pool, procedure: queue.procedure, count: Int(count))
        }
        lastPublisherService = Date()
    }

    /// The header that tells workers when a task was published (queued-to-started).
    func queuedAtHeaders() -> [String: AMQPFieldValue] {
        [BatonTopology.queuedAtHeader: .int(Int64((Date().timeIntervalSince1970 * 1000).rounded()))]
    }
}
