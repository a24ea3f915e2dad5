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
        let refused = refusedInBatch
        refusedInBatch = []  // if the commit fails, the reports come back and are judged again
        let chunks = whole.chunks(maxCommands: Self.chunkCommands, maxBytes: configuration.commitBytes)
        for (index, chunk) in chunks.enumerated() {
            // The reports are acked with the last piece, once everything they led to is recorded.
            try commit(chunk, ackUpTo: index == chunks.count - 1 ? tag : nil, witnessed: whole.order)
        }
        tellRefusals(refused)
        if heldOutputBytes > configuration.memoryBudget / 2 { offloadOutputs() }
    }

    /// Past half the memory budget, drops the outputs of ended nodes of every cached run from memory
    /// (committed now, so the store has them): a dependent reads them back when it needs them.
    func offloadOutputs() {
        guard connected else { return }
        var freed = 0
        for id in Array(runs.keys) { freed += runs[id]!.offloadOutputs(minimumBytes: configuration.offloadMinimumBytes) }
        logger.debug("memory budget: dropped about \(freed) bytes of outputs from memory (about \(heldOutputBytes) held)")
        heldOutputBytes = max(0, heldOutputBytes - freed)
        // Small outputs stay: counted as a quarter of the budget, so the next offload is not at once.
        if heldOutputBytes > configuration.memoryBudget / 2 { heldOutputBytes = configuration.memoryBudget / 4 }
        metrics?.outputsOffloaded(bytes: freed)
    }

    /// Records `chunk`, then publishes and acks up to `tag`: the reports of the runs `witnessed` in
    /// the batch are acked only if every one of those runs that failed as a whole has its failure
    /// written. If one is not yet, nothing is acked (the error reconnects, and the reports come back):
    /// a run failed in memory only would lose the results its next owner needs to go on.
    func commit(_ chunk: PendingBatch, ackUpTo tag: BrokerReceipt?, witnessed: [String] = []) throws {
        let clock = ContinuousClock()
        let began = clock.now
        var number: Int64?
        let batch = try record(chunk, number: &number)
        if tag != nil, witnessed.contains(where: { unrecordedFailures[$0] != nil }) {
            try recordFailures()
            if let id = witnessed.first(where: { unrecordedFailures[$0] != nil }) {
                throw CoordinatorError("run \(id) failed, but its failure is not recorded yet: its reports are not acked until it is")
            }
        }
        try finishCommit(batch, number: number, ackUpTo: tag, began: began, applied: clock.now)
    }

    /// Writes `part` and returns what of it was recorded (runs failed alone are left out), carrying out
    /// `FailureDecision.committing`: a passing error (serialization failure, deadlock, disk full,
    /// statement timeout) rolls the statement back and the same batch is committed again after a
    /// back-off, nothing acked meanwhile, and split after a few tries; an error of the batch's own
    /// content (class 22, 23, 54, a statement too large to send) splits it one run at a time, so the run
    /// that causes it fails alone with the error. Every such retry is counted (`baton_commit_retries_total`).
    private func record(_ part: PendingBatch, number: inout Int64?) throws -> PendingBatch {
        guard let store else { return PendingBatch() }
        var retry = CommitRetry(partitionLease: configuration.partitionLease, random: configuration.random)
        while true {
            do {
                let written = try store.apply(
                    part.runs, heartbeats: part.heartbeats, handledRequests: part.handledRequests, confirmedBatch: part.confirmedBatch,
                    confirmedPartitions: Array(part.confirmedPartitions), holds: part.holdChanges, now: now())
                number = [number, written].compactMap { $0 }.max()
                return part
            } catch {
                switch retry.failed(error, runs: part.order) {
                case let .retry(delay, reason):
                    metrics?.commitRetried(reason: reason)
                    // Each wait is shorter than a third of the partition lease, so that the renewals between
                    // tries keep the partitions held however long the store keeps refusing the commit.
                    try renewWhenDue()
                    let code = StoreFailure.sqlState(of: error) ?? "?"
                    logger.warning(
                        "committing a batch of \(part.order.count) run(s) failed with SQLSTATE \(code), retrying in \(String(format: "%.2f", delay)) s: \(error)"
                    )
                    health.beat(quietFor: delay)
                    if configuration.pause(delay, stop) { throw error }
                case let .split(reason):
                    metrics?.commitRetried(reason: reason)
                    // Find the run whose data cannot be recorded: apply one run at a time, fail the one that does not go in.
                    logger.error("a batch of \(part.order.count) runs cannot be recorded (\(error)); recording them one at a time")
                    var recorded = PendingBatch()
                    for piece in part.split() {
                        let kept = try record(piece, number: &number)
                        for (runID, commands) in kept.runs { recorded.record(runID, commands) }
                        recorded.heartbeatsReceipt = recorded.heartbeatsReceipt ?? kept.heartbeatsReceipt
                    }
                    return recorded
                case let .reconnect(reason):
                    metrics?.commitRetried(reason: reason)
                    throw error
                case .decide(.dropBookkeeping):
                    try carryOut(.dropBookkeeping, error: error)
                    var dropped = PendingBatch()
                    dropped.heartbeatsReceipt = part.heartbeatsReceipt  // not recorded, and not received again for ever
                    return dropped
                case let .decide(decision):
                    try carryOut(decision, error: error)  // fails one run, or stops on a fatal error
                    return PendingBatch()
                }
            }
        }
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
            if cache.committed(runID, status: runs[runID]?.status) {
                logger.info("run \(runID) \(runs[runID]!.status.rawValue)", metadata: tracing?.takeLogMetadata(runID))
                runs[runID] = nil
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
        if backlog.mustWait(confirmedThrough: settled) {
            try awaitConfirms()  // the broker is slow: let it catch up (a timeout reconnects)
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

    /// Waits until the broker confirmed every publish so far, in slices of at most a fifth of the
    /// partition lease, renewing the partitions' leases between them (`renewWhenDue`): a broker that
    /// does not answer (a network cut, a stall) holds up the confirms, not the store's duties. After
    /// `confirmDeadline` seconds in all the timeout is thrown (it reconnects), as one 30 s wait did.
    func awaitConfirms() throws {
        var wait = ConfirmWait(partitionLease: configuration.partitionLease, deadline: Self.confirmDeadline)
        while true {
            do {
                try broker.waitForConfirms(timeout: wait.slice)
                return
            } catch  where BrokerFailure(error) == .timeout {
                guard wait.timedOut() else { throw error }
                try renewWhenDue()
            }
        }
    }

    /// How long, in all, the coordinator waits for the broker's confirms before it reconnects.
    static let confirmDeadline = 30.0
}
