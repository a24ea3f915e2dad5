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
    /// Not while the broker blocks publishers: it stops reading a blocked connection, so the RPC would
    /// only time out (`AMQPCoordinatorBroker.callTimeout`) and reconnect.
    func readQueueDepths(_ metrics: CoordinatorMetrics) throws {
        // Nodes held by a pause: counted only while something is paused (a scan of the cached runs).
        metrics.pausedNodes(pauses.isEmpty ? 0 : runs.values.reduce(0) { $0 + $1.pausedNodes })
        guard connected, leases.blockedSince == nil else { return }
        for queue in watchedQueues {
            let count = try broker.taskQueueDepth(pool: queue.pool, procedure: queue.procedure)
            metrics.tasksWaiting(pool: queue.pool, procedure: queue.procedure, count: count)
        }
    }
}
