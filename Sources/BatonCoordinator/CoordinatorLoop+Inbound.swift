import Baton
import BatonAMQP
import BatonStore
import Foundation

/// One message of a batch, as the loop takes it in: a heartbeat renews a lease, a report is checked
/// (its output's size, its attempt's token) and fed to its run's state machine, one of a run whose
/// partition another coordinator holds is forwarded there, and a dead letter fails or requeues its node.
extension CoordinatorLoop {
    /// One message of the batch: a heartbeat, a dead letter or a report, fed to the runs' state
    /// machines; one of a run whose partition this coordinator does not hold goes to the queue of that
    /// partition, for its owner (acked once the broker confirmed the copy).
    func handle(_ message: CoordinatorInbound) throws {
        switch message {
        case let .heartbeat(body, shared):
            handleHeartbeat(body, shared: shared)
        case let .deadLetter(body, deliveries, queue, receipt):
            lastReport = receipt
            try handleDeadLetter(body, origin: DeadLetterOrigin(deliveries: deliveries, queue: queue), forwardedWith: nil)
        case let .unrouted(body, origin, receipt):
            if let origin {
                try handleDeadLetter(body, origin: origin, forwardedWith: receipt)
            } else {
                try forwardReport(body, receipt: receipt)
            }
        case let .report(body, receipt):
            let report: ReportMessage
            do {
                report = OutputCheck(maxOutputBytes: configuration.maxOutputBytes).checked(
                    try ReportMessage(decoding: body), messageBytes: body.count)
            } catch {
                logger.warning("dead-lettering a report: \(error)")
                try broker.reject(receipt)
                return
            }
            lastReport = receipt
            guard store?.fence?.holds(report.runID) ?? true else {
                lastSequence = try broker.forward(body, toPartition: partition(of: report.runID), deadLetter: nil)
                return
            }
            pending.witness(report.runID)
            guard try startRun(report.runID) else { return }
            // A report without its attempt's token changes nothing (it is acked with the batch, as a stale one is).
            if let refusal = configuration.reportCheck.refusal(of: report, in: runs[report.runID]!) {
                refused(refusal, kind: report.kind.rawValue, runID: report.runID, key: report.key, attempt: report.attempt)
                return
            }
            if report.kind == .result {
                nodesFinished += 1
                heldOutputBytes += body.count  // the output is most of it: counted without measuring
            }
            // A worker first heard of through what it runs (its heartbeats may have gone out before
            // this coordinator's heartbeat queue was bound) gets a lease from now: if it dies, its
            // attempts still go out again.
            if report.kind == .started, let worker = report.worker { leases.expect(worker, at: now()) }
            record(
                report.runID, runs[report.runID]!.handle(report.event, at: now(), random: configuration.random, tokens: configuration.attemptTokens))
        }
    }

    /// Counts and logs (at most one line per `RefusalLog.interval`) a report refused by `ReportCheck`.
    /// A report refused for its token: counted and logged once the batch's commit proved this
    /// coordinator's view of the run current (`tellRefusals`). A coordinator that lost the run's
    /// partition unawares (stopped past its lease) judges by a stale token, and its commit fails.
    func refused(_ refusal: ReportCheck.Refusal, kind: String, runID: String, key: String, attempt: Int) {
        refusedInBatch.append((refusal, "\(kind) report of run \(runID) node \(key) attempt \(attempt)"))
    }

    /// Counts and logs (rate-limited) the reports refused in the batch just committed.
    func tellRefusals(_ refused: [(ReportCheck.Refusal, String)]) {
        for (refusal, what) in refused {
            metrics?.reportRefused(refusal)
            if let line = refusals.refused(refusal, what: what, at: now()) { logger.warning("\(line)") }
        }
    }

    /// The partition of a run.
    func partition(of runID: String) -> Int { RunPartition.of(runID, count: partitionCount) }

    /// A report of a task that carried no partition (from a coordinator before partitions): to its
    /// run's partition, then acked; one that cannot be read is dead-lettered.
    func forwardReport(_ body: [UInt8], receipt: BrokerReceipt) throws {
        let report: ReportMessage
        do { report = try ReportMessage(decoding: body) } catch {
            logger.warning("dead-lettering a report: \(error)")
            try broker.reject(receipt)
            return
        }
        guard UUID(uuidString: report.runID) != nil else {
            logger.warning("dead-lettering a report: its run id '\(report.runID)' is not a UUID")
            try broker.reject(receipt)
            return
        }
        lastSequence = try broker.forward(body, toPartition: partition(of: report.runID), deadLetter: nil)
        try awaitConfirms()
        try broker.ack(receipt)
    }

    /// A dead-lettered task fails its node (or, if it never started, goes out again: `RunState+DeadLetters`);
    /// anything else on the dead-letter queue is only logged.
    /// From the shared dead-letter queue (`forwardedWith` its receipt) it goes to its run's partition
    /// first, then is acked: every coordinator reads that queue, only the run's owner acts on it.
    func handleDeadLetter(_ body: [UInt8], origin: DeadLetterOrigin, forwardedWith receipt: BrokerReceipt?) throws {
        let (deliveries, queue) = (origin.deliveries, origin.queue)
        let task: TaskDispatch
        do { task = try TaskDispatch(decoding: body) } catch {
            logger.warning("dead letter from \(queue ?? "?") that is not a task (\(body.count) bytes; \(error)); dropped")
            if let receipt { try broker.ack(receipt) }
            return
        }
        if let receipt {
            if UUID(uuidString: task.runID) != nil {
                lastSequence = try broker.forward(body, toPartition: partition(of: task.runID), deadLetter: origin)
                try awaitConfirms()
            }
            try broker.ack(receipt)
            return
        }
        guard store?.fence?.holds(task.runID) ?? true else {
            lastSequence = try broker.forward(body, toPartition: partition(of: task.runID), deadLetter: origin)
            return
        }
        pending.witness(task.runID)
        guard try startRun(task.runID) else { return }
        // A dead letter is a task's copy: it carries the attempt's token too, or it is no dead letter of ours.
        if let refusal = configuration.reportCheck.refusal(key: task.key, attempt: task.attempt, token: task.attemptToken, in: runs[task.runID]!) {
            refused(refusal, kind: "dead letter", runID: task.runID, key: task.key, attempt: task.attempt)
            return
        }
        let reason =
            "the task was dead-lettered after \(deliveries) deliveries without a result: it keeps killing (or losing) the worker that runs it"
        logger.error("run \(task.runID) node \(task.key) attempt \(task.attempt): \(reason)")
        let commands = runs[task.runID]!.handle(
            .deadLettered(key: task.key, attempt: task.attempt, reason: reason), at: now(), random: configuration.random,
            tokens: configuration.attemptTokens)
        // Counted only when it failed the node: an attempt that never started goes out again instead.
        if commands.contains(where: { if case let .node(change) = $0 { change.event == "dead_lettered" } else { false } }) {
            uncountedDeadLetters += 1
        }
        record(task.runID, commands)
    }
}
