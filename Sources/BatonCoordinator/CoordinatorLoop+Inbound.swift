import Baton
import BatonAMQP
import BatonStore
import Foundation

/// One message of a batch, as the loop takes it in (`InboundIntake` decides): a heartbeat renews a
/// lease, a report is checked (its output's size, its attempt's token) and fed to its run's state
/// machine, one of a run whose partition another coordinator holds is forwarded there, and a dead
/// letter fails or requeues its node.
extension CoordinatorLoop {
    /// The intake's decisions about inbound messages, with this loop's limits.
    var intake: InboundIntake {
        InboundIntake(maxOutputBytes: configuration.maxOutputBytes, partitionCount: partitionCount, reportCheck: configuration.reportCheck)
    }

    /// One message of the batch, carried out as `InboundIntake` routes and judges it: a heartbeat, a
    /// dead letter or a report, fed to the runs' state machines; one of a run whose partition this
    /// coordinator does not hold goes to the queue of that partition, for its owner (acked with the
    /// batch, or at once when the broker confirmed the copy of a message from a shared queue).
    func handle(_ message: CoordinatorInbound) throws {
        let intake = self.intake
        let (route, withBatch) = intake.route(message) { NotificationIntake.holds($0, fence: store?.fence) }
        if let withBatch { lastReport = withBatch }
        switch route {
        case let .heartbeat(body, shared):
            handleHeartbeat(body, shared: shared)
        case let .reject(receipt, reason):
            logger.warning("\(reason)")
            try broker.reject(receipt)
        case let .drop(ack, reason):
            logger.warning("\(reason)")
            if let ack { try broker.ack(ack) }
        case let .forward(body, partition, deadLetter, ackOnConfirm):
            lastSequence = try broker.forward(body, toPartition: partition, deadLetter: deadLetter)
            if let ackOnConfirm {
                try awaitConfirms()
                try broker.ack(ackOnConfirm)
            }
        case let .report(report, bytes):
            pending.witness(report.runID)
            guard try startRun(report.runID) else { return }
            carryOut(intake.judge(report, in: runs[report.runID]!), runID: report.runID, heldBytes: bytes)
        case let .deadLetter(task, deliveries):
            pending.witness(task.runID)
            guard try startRun(task.runID) else { return }
            carryOut(intake.judgeDeadLetter(task, deliveries: deliveries, in: runs[task.runID]!), runID: task.runID, heldBytes: 0)
        }
    }

    /// A judged report or dead letter: refused (told once the batch is committed), or fed to its run.
    private func carryOut(_ judgement: InboundIntake.Judgement, runID: String, heldBytes: Int) {
        switch judgement {
        case let .refused(refusal, what):
            refused(refusal, what: what)
        case let .feed(event, result, worker):
            if result {
                nodesFinished += 1
                heldOutputBytes += heldBytes  // the output is most of it: counted without measuring
            }
            if let worker { leases.expect(worker, at: now()) }
            if case let .deadLettered(key, attempt, reason) = event { logger.error("run \(runID) node \(key) attempt \(attempt): \(reason)") }
            let commands = runs[runID]!.handle(event, at: now(), random: configuration.random, tokens: configuration.attemptTokens)
            if case .deadLettered = event, InboundIntake.failedByDeadLetter(commands) { uncountedDeadLetters += 1 }
            record(runID, commands)
        }
    }

    /// Counts and logs (at most one line per `RefusalLog.interval`) a report refused by `ReportCheck`.
    /// A report refused for its token: counted and logged once the batch's commit proved this
    /// coordinator's view of the run current (`tellRefusals`). A coordinator that lost the run's
    /// partition unawares (stopped past its lease) judges by a stale token, and its commit fails.
    func refused(_ refusal: ReportCheck.Refusal, what: String) {
        refusedInBatch.append((refusal, what))
    }

    /// Counts and logs (rate-limited) the reports refused in the batch just committed.
    func tellRefusals(_ refused: [(ReportCheck.Refusal, String)]) {
        for (refusal, what) in refused {
            metrics?.reportRefused(refusal)
            if let line = refusals.refused(refusal, what: what, at: now()) { logger.warning("\(line)") }
        }
    }
}

extension CoordinatorLoop {
    /// The partition of a run.
    func partition(of runID: String) -> Int { RunPartition.of(runID, count: partitionCount) }
}
