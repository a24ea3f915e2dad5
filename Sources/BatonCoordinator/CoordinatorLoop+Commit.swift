import Baton
import BatonAMQP
import BatonStore
import Foundation

/// The end of a batch: commit it (in pieces if large), publish what it decided, and ack the
/// reports of earlier batches once the broker confirmed the tasks published up to them.
extension CoordinatorLoop {
    /// Commands committed in one statement at most: a larger batch is committed (and published) in pieces.
    static let chunkCommands = 5_000

    /// Persists, then publishes, then acks: the order that makes a crash at any point harmless.
    func commit(ackUpTo tag: BrokerReceipt?) throws {
        let whole = pending
        pending = PendingBatch()
        let chunks = whole.chunks(maxCommands: Self.chunkCommands)
        for (index, chunk) in chunks.enumerated() {
            // The reports are acked with the last piece, once everything they led to is recorded.
            try commit(chunk, ackUpTo: index == chunks.count - 1 ? tag : nil)
        }
    }

    func commit(_ chunk: PendingBatch, ackUpTo tag: BrokerReceipt?) throws {
        guard let store else { return }
        var batch = chunk
        let clock = ContinuousClock()
        let began = clock.now
        var number: Int64?
        // A passing error (serialization failure, deadlock, disk full, statement timeout) rolls the
        // statement back: the same batch is committed again after a back-off, and nothing is acked meanwhile.
        func apply(_ part: PendingBatch) throws -> Int64? {
            try retryingPassingErrors("committing a batch of \(part.order.count) run(s)") {
                try store.apply(
                    part.runs, heartbeats: part.heartbeats, handledRequests: part.handledRequests, confirmedBatch: part.confirmedBatch,
                    confirmedPartitions: Array(part.confirmedPartitions), holds: part.holdChanges, now: now())
            }
        }
        do {
            number = try apply(batch)
        } catch {
            let decision = FailureDecision.committing(runs: batch.order, error: error)
            if decision == .splitBatch {
                // Find the run whose data cannot be recorded: apply one run at a time, fail the one that does not go in.
                logger.error("a batch of \(batch.order.count) runs cannot be recorded (\(error)); recording them one at a time")
                var recorded = PendingBatch()
                for part in batch.split() {
                    do {
                        let partNumber = try apply(part)
                        number = [number, partNumber].compactMap { $0 }.max()
                        for (runID, commands) in part.runs { recorded.record(runID, commands) }
                    } catch {
                        try carryOut(FailureDecision.committing(runs: part.order, error: error), error: error)
                    }
                }
                batch = recorded
            } else {
                try carryOut(decision, error: error)  // rethrows a lost connection, stops on a fatal error
                batch = PendingBatch()
            }
        }
        try finishCommit(batch, number: number, ackUpTo: tag, began: began, applied: clock.now)
    }

    /// After the commit: publish (confirmed), remember what the broker now holds, ack, evict ended runs.
    func finishCommit(
        _ batch: PendingBatch, number: Int64?, ackUpTo tag: BrokerReceipt?, began: ContinuousClock.Instant,
        applied: ContinuousClock.Instant
    ) throws {
        guard connected else { return }
        uncommittedCache = [:]
        if let receipt = batch.heartbeatsReceipt { try broker.ack(through: receipt) }
        let publications = batch.publications
        // The publish time is stamped only with metrics on (workers measure queued-to-started from it).
        let queuedAt = metrics == nil || publications.isEmpty ? nil : now()
        // With a tracer: attempts and runs that ended in this batch end their spans, before the new attempts start theirs.
        if let tracing, let store {
            for (runID, commands) in batch.runs { tracing.committed(runID, commands, at: now(), store: store) }
        }
        for publication in publications {
            switch publication {
            case var .task(task):
                task.partition = partition(of: task.runID)  // the worker routes its reports to the run's partition
                if metrics != nil { watchedQueues.insert(QueueName(pool: task.pool, procedure: task.procedure)) }
                let traceparent: String? = if let tracing, let store { tracing.published(task, at: now(), store: store) } else { nil }
                lastSequence = try broker.publishTask(
                    pool: task.pool, procedure: task.procedure, body: task.encoded(), priority: UInt8(clamping: task.priority),
                    queuedAt: queuedAt, traceparent: traceparent)
                watchPublished(task)
            case let .cancel(message):
                lastSequence = try broker.publishCancel(body: message.encoded())
            }
        }
        // The results are acked, and the batch recorded as confirmed (so a restart knows the broker
        // holds its tasks), once the broker confirmed everything published so far: not waited for here.
        if tag != nil || !publications.isEmpty {
            var partitions = Set<Int>()
            for case let .task(task) in publications { partitions.insert(partition(of: task.runID)) }
            backlog.committed(
                publishedThrough: lastSequence, resultTag: tag, number: number, published: !publications.isEmpty, partitions: partitions)
            try settleConfirms()
        }
        if let metrics {
            // Counted after the commit, from what was committed: a batch that failed counts nothing.
            if !batch.order.isEmpty { metrics.committed(BatchTally(batch.runs), seconds: Self.seconds(applied - began), now: now()) }
            metrics.deadLettered(uncountedDeadLetters)
            uncountedDeadLetters = 0
        }
        if !batch.order.isEmpty {
            let clock = ContinuousClock()
            logger.debug(
                "batch: \(batch.commandCount) commands, applied in \(applied - began), \(publications.count) published in \(clock.now - applied)")
        }
        for runID in batch.order {
            if runs[runID]?.status.isTerminal == true {
                logger.info("run \(runID) \(runs[runID]!.status.rawValue)", metadata: tracing?.takeLogMetadata(runID))
                runs[runID] = nil
                finished.insert(runID)
            }
            // Timers may have been armed or disarmed by this batch: only its runs' are looked at.
            runTimers.set(runID, at: runs[runID]?.nextWakeUp)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Takes the confirms that arrived (waiting for them when too many batches are held), acks the
    /// results of the batches they release, and records the newest confirmed batch with the next commit.
    func settleConfirms() throws {
        guard connected, !backlog.isEmpty else { return }
        var settled = try broker.confirmed()
        if backlog.isFull && settled < backlog.entries[0].publishedThrough {
            try broker.waitForConfirms()  // the broker is slow: let it catch up (a timeout reconnects)
            settled = lastSequence
        }
        takeReturnedTasks()
        let release = backlog.settled(through: settled)
        brokerServiced = true
        if let number = release.confirmedBatch {
            pending.confirmedBatch = max(pending.confirmedBatch ?? number, number)
            pending.confirmedPartitions.formUnion(release.confirmedPartitions)
        }
        if let receipt = release.ackThrough { try broker.ack(through: receipt) }
    }
}
