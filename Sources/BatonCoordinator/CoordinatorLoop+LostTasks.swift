import Baton
import Foundation

/// Lost tasks, as the loop carries out `LostTaskReconciler`'s decisions: it watches the tasks it
/// publishes (and the queued nodes of the runs it loads), hears the broker return the unroutable ones,
/// reads the depth of the queues it must look at (which declares a deleted queue again), and
/// publishes what was lost again under the same attempt, through the batch like any dispatch.
extension CoordinatorLoop {
    /// A task went out: watched until its node leaves `queued`.
    func watchPublished(_ task: TaskDispatch) {
        reconciler.published(
            .init(runID: task.runID, key: task.key, attempt: task.attempt), queue: QueueName(pool: task.pool, procedure: task.procedure),
            at: now())
    }

    /// The queued nodes of a run just loaded are watched from now.
    func watchQueued(of runID: String) {
        guard let state = runs[runID] else { return }
        let now = now()
        for task in state.queuedTasks {
            reconciler.published(
                .init(runID: runID, key: task.key, attempt: task.attempt), queue: QueueName(pool: task.pool, procedure: task.procedure), at: now)
        }
    }

    /// Takes the tasks the broker returned unroutable (no queue was bound for them).
    func takeReturnedTasks() {
        let returned = broker.takeReturned()
        guard !returned.isEmpty else { return }
        metrics?.returned(returned.count)
        for body in returned {
            guard let task = try? TaskDispatch(decoding: body) else { continue }
            reconciler.returned(
                .init(runID: task.runID, key: task.key, attempt: task.attempt), queue: QueueName(pool: task.pool, procedure: task.procedure),
                at: now())
        }
        logger.warning("the broker returned \(returned.count) task(s) unroutable: a task queue is missing (deleted?); declaring it again")
    }

    /// A pass of the reconciler, when due: the depth of each queue it names is read, and the tasks
    /// it decides were lost go out again, with their stored attempt, input and phase.
    func reconcileLostTasks() throws {
        let now = now()
        // Not while the broker blocks publishers: it reads nothing on a blocked connection (see `readQueueDepths`).
        guard configuration.reconcileLostTasks, leases.blockedSince == nil, reconciler.isDue(now: now) else { return }
        let queues = reconciler.queuesToCheck(now: now) { [runs] attempt in
            guard let node = runs[attempt.runID]?.nodes[attempt.key] else { return false }
            return node.status == .queued && node.attempt == attempt.attempt
        }
        var budget = reconciler.settings.perPass
        for queue in queues where budget > 0 {
            let depth = try broker.taskQueueDepth(pool: queue.pool, procedure: queue.procedure)
            let lost = reconciler.decide(queue: queue, depth: depth, now: now, budget: budget)
            guard !lost.isEmpty else { continue }
            budget -= lost.count
            var byRun: [String: [String: Int]] = [:]
            for item in lost { byRun[item.attempt.runID, default: [:]][item.attempt.key] = item.attempt.attempt }
            for (runID, attempts) in byRun.sorted(by: { $0.key < $1.key }) {
                guard runs[runID] != nil else { continue }
                record(runID, runs[runID]!.republishQueued(attempts, at: now, random: configuration.random, tokens: configuration.attemptTokens))
            }
            for reason in LostTaskReconciler.Reason.allCases {
                metrics?.republished(lost.filter { $0.reason == reason }.count, reason: reason.rawValue)
            }
            logger.warning(
                "task queue \(queue.pool):\(queue.procedure) holds \(depth) task(s): publishing \(lost.count) lost task(s) again under the same attempt (\(Set(lost.map(\.reason.rawValue)).sorted().joined(separator: ", ")))"
            )
        }
    }
}
