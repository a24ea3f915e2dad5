import Baton
import BatonAMQP
import Foundation

/// What the coordinator does with one inbound message, as values: `route` reads the message and says
/// where it goes (its run's state machine, another partition's queue, the dead-letter queue, nowhere),
/// and `judge` / `judgeDeadLetter` say, once the run is loaded, whether it is fed to the run and with
/// what. The loop only carries the steps out (`CoordinatorLoop+Inbound`).
struct InboundIntake: Sendable {
    let maxOutputBytes: Int
    let partitionCount: Int
    let reportCheck: ReportCheck

    /// Where a message goes.
    enum Route {
        /// A worker's heartbeat, for the leases (and, from the shared queue, the workers' table).
        case heartbeat([UInt8], shared: BrokerReceipt?)
        /// Refused to the dead-letter queue: it cannot be read. `reason` is logged.
        case reject(BrokerReceipt, reason: String)
        /// Acked unread (when from a queue that needs acks): it is not a task. `reason` is logged.
        case drop(ack: BrokerReceipt?, reason: String)
        /// Sent to the queue of its run's partition; `ackOnConfirm` is acked once the broker confirmed
        /// the copy (a message of a shared queue), else it is acked with the batch.
        case forward([UInt8], partition: Int, deadLetter: DeadLetterOrigin?, ackOnConfirm: BrokerReceipt?)
        /// A report of a run of a partition held: to its run, once loaded.
        case report(ReportMessage, bytes: Int)
        /// A dead-lettered task of a run of a partition held: to its run, once loaded.
        case deadLetter(TaskDispatch, deliveries: Int)
    }

    /// A message's route, and the receipt acked with the batch (nil: acked on its own, or not at all).
    /// `holds` says whether this coordinator holds a run's partition.
    func route(_ message: CoordinatorInbound, holds: (String) -> Bool) -> (route: Route, withBatch: BrokerReceipt?) {
        switch message {
        case let .heartbeat(body, shared):
            return (.heartbeat(body, shared: shared), nil)
        case let .report(body, receipt):
            let report: ReportMessage
            do { report = OutputCheck(maxOutputBytes: maxOutputBytes).checked(try ReportMessage(decoding: body), messageBytes: body.count) } catch {
                return (.reject(receipt, reason: "dead-lettering a report: \(error)"), nil)
            }
            if !holds(report.runID) { return (.forward(body, partition: partition(of: report.runID), deadLetter: nil, ackOnConfirm: nil), receipt) }
            return (.report(report, bytes: body.count), receipt)
        case let .deadLetter(body, deliveries, queue, receipt):
            let origin = DeadLetterOrigin(deliveries: deliveries, queue: queue)
            let task: TaskDispatch
            do { task = try TaskDispatch(decoding: body) } catch { return (Self.notATask(body, origin, error, ack: nil), receipt) }
            if !holds(task.runID) { return (.forward(body, partition: partition(of: task.runID), deadLetter: origin, ackOnConfirm: nil), receipt) }
            return (.deadLetter(task, deliveries: deliveries), receipt)
        case let .unrouted(body, origin?, receipt):
            // Every coordinator reads the shared dead-letter queue: only the run's owner acts on it.
            let task: TaskDispatch
            do { task = try TaskDispatch(decoding: body) } catch { return (Self.notATask(body, origin, error, ack: receipt), nil) }
            guard UUID(uuidString: task.runID) != nil else {
                return (.drop(ack: receipt, reason: "dead letter of run '\(task.runID)', not a UUID; dropped"), nil)
            }
            return (.forward(body, partition: partition(of: task.runID), deadLetter: origin, ackOnConfirm: receipt), nil)
        case let .unrouted(body, nil, receipt):
            // A report of a task that carried no partition (from a coordinator before partitions).
            let report: ReportMessage
            do { report = try ReportMessage(decoding: body) } catch { return (.reject(receipt, reason: "dead-lettering a report: \(error)"), nil) }
            guard UUID(uuidString: report.runID) != nil else {
                return (.reject(receipt, reason: "dead-lettering a report: its run id '\(report.runID)' is not a UUID"), nil)
            }
            return (.forward(body, partition: partition(of: report.runID), deadLetter: nil, ackOnConfirm: receipt), nil)
        }
    }

    /// What a report of a loaded run comes to.
    enum Judgement {
        /// Changes nothing: counted and logged once the batch is committed (`what` names it).
        case refused(ReportCheck.Refusal, what: String)
        /// Fed to the run's state machine. `result`: a node finished (its bytes held until committed);
        /// `worker`: a worker first heard of through what it runs, which gets a lease from now.
        case feed(SchedulerEvent, result: Bool, worker: String?)
    }

    /// A report of `run`: fed, or refused without its attempt's token.
    func judge(_ report: ReportMessage, in run: RunState) -> Judgement {
        if let refusal = reportCheck.refusal(of: report, in: run) {
            return .refused(refusal, what: "\(report.kind.rawValue) report of run \(report.runID) node \(report.key) attempt \(report.attempt)")
        }
        return .feed(report.event, result: report.kind == .result, worker: report.kind == .started ? report.worker : nil)
    }

    /// A dead-lettered task of `run`: it carries its attempt's token too, or it is no dead letter of
    /// ours; else it fails its node (or, if it never started, goes out again: `RunState+DeadLetters`).
    func judgeDeadLetter(_ task: TaskDispatch, deliveries: Int, in run: RunState) -> Judgement {
        if let refusal = reportCheck.refusal(key: task.key, attempt: task.attempt, token: task.attemptToken, in: run) {
            return .refused(refusal, what: "dead letter report of run \(task.runID) node \(task.key) attempt \(task.attempt)")
        }
        let reason =
            "the task was dead-lettered after \(deliveries) deliveries without a result: it keeps killing (or losing) the worker that runs it"
        return .feed(.deadLettered(key: task.key, attempt: task.attempt, reason: reason), result: false, worker: nil)
    }

    /// Whether `commands` failed a node for a dead letter (counted; an attempt that never started goes out again instead).
    static func failedByDeadLetter(_ commands: [SchedulerCommand]) -> Bool {
        commands.contains { if case let .node(change) = $0 { change.event == .deadLettered } else { false } }
    }

    func partition(of runID: String) -> Int { RunPartition.of(runID, count: partitionCount) }

    private static func notATask(_ body: [UInt8], _ origin: DeadLetterOrigin, _ error: any Error, ack: BrokerReceipt?) -> Route {
        .drop(ack: ack, reason: "dead letter from \(origin.queue ?? "?") that is not a task (\(body.count) bytes; \(error)); dropped")
    }
}
