import Baton
import BatonAMQP
import Foundation
import Logging

/// The publisher thread: sends reports and heartbeats with publisher confirms, without waiting
/// for one batch's confirms before publishing the next, and passes a result's task on to be
/// acked only once the broker confirmed it. What to do next is `PublisherStateMachine`'s
/// decision; this thread carries it out and feeds back what happened.
final class ReportPublisher: @unchecked Sendable {
    // Safe: `broker`, `connected` and `machine` are touched only by the publisher thread.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private let startedAt: Date
    private let broker: any WorkerReportBroker
    private var connected = false
    /// Whether the broker blocked this publisher when last looked (logged when it changes).
    private var blocked = false
    private var machine: PublisherStateMachine
    private lazy var backoff = Backoff(random: configuration.random)
    /// Not before this time does a turn try to connect again (a back-off after an error).
    private var retryAt = Date.distantPast
    /// Set once the last heartbeat (saying the worker stops) went out.
    private(set) var finished = false

    /// Reports taken and not yet confirmed, at most.
    static let window = 1_000

    /// The attempts the worker holds (`TaskConsumer.holding`), listed in each heartbeat.
    private let holding: @Sendable () -> [HeldAttempt]

    init(
        configuration: WorkerConfiguration, mailbox: WorkerMailbox, startedAt: Date,
        holding: @escaping @Sendable () -> [HeldAttempt] = { [] }
    ) {
        self.holding = holding
        self.configuration = configuration
        self.mailbox = mailbox
        self.startedAt = startedAt
        broker = configuration.makeReportBroker()
        machine = PublisherStateMachine(window: Self.window, heartbeatInterval: configuration.heartbeatInterval)
    }

    /// Runs until `done()` says there is nothing left to send.
    func run(until done: @escaping () -> Bool) {
        let stop = StopSignal()
        while turn(until: done, confirmWait: 0.2) {
            let wait = retryAt.timeIntervalSince(configuration.clock())
            if wait > 0 { _ = configuration.pause(wait, stop) }
        }
    }

    /// One turn: (re)connect, publish what waits and a heartbeat if due, read confirms (waiting up
    /// to `confirmWait` seconds). Returns false once everything is sent and `done()`. The simulator
    /// calls it directly.
    func turn(until done: () -> Bool, confirmWait: Double) -> Bool {
        guard configuration.clock() >= retryAt else { return !finished }
        do {
            if !connected {
                try broker.connect()
                connected = true
                backoff.reset()
            }
            try step(confirmWait: confirmWait)
            if machine.isSettled && mailbox.hasNoReports && done() {
                // The last heartbeat says this worker is gone, so it leaves `baton workers` at once.
                _ = try? broker.publishHeartbeat(heartbeat(stopping: true, withSchemas: false).encoded())
                try? broker.waitForConfirms()
                broker.close()
                connected = false
                finished = true
                return false
            }
        } catch {
            mailbox.putBack(machine.connectionLost())
            let delay = backoff.delay(after: error)
            configuration.logger.error("worker publisher: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
            broker.close()
            connected = false
            if done() {
                finished = true
                return false
            }
            retryAt = configuration.clock().addingTimeInterval(delay)
        }
        return true
    }

    /// The process dies: the connection closes; what was not confirmed is lost with it.
    func crash() {
        broker.close()
        connected = false
        finished = true
    }

    /// Publishes what is waiting (as the window allows) and a heartbeat if due, then reads the
    /// confirms that came, waiting a little for them or for new reports.
    private func step(confirmWait: Double) throws {
        machine.taken(mailbox.takeReports(limit: machine.room))
        while true {
            switch machine.next(now: configuration.clock()) {
            case let .publishReport(body, partition):
                machine.published(sequence: try broker.publishReport(body, partition: partition))
            case let .publishHeartbeat(withSchemas):
                machine.published(sequence: try broker.publishHeartbeat(heartbeat(stopping: false, withSchemas: withSchemas).encoded()))
            case let .readConfirms(wakeOnReports):
                let settled = try broker.confirmed(timeout: confirmWait, wakeup: wakeOnReports ? mailbox.publisherWakeup : nil)
                mailbox.confirmed(machine.confirmed(through: settled))
                noteFlowControl()
                return
            }
        }
    }

    /// Logs when the broker starts or stops blocking this publisher (a memory or disk alarm): reports
    /// and heartbeats wait in the connection meanwhile, and the coordinator holds the leases.
    private func noteFlowControl() {
        let reason = broker.blockedReason
        guard (reason != nil) != blocked else { return }
        blocked = reason != nil
        if let reason {
            configuration.logger.warning("worker publisher: the broker blocks publishes (\(reason)); reports and heartbeats wait")
        } else {
            configuration.logger.notice("worker publisher: the broker takes publishes again")
        }
    }

    /// Slots busy now, also recorded as `baton_worker_slots_busy`.
    private func busyNow() -> Int {
        let busy = mailbox.busyCount
        configuration.metrics?.busy(busy)
        return busy
    }

    private func heartbeat(stopping: Bool, withSchemas: Bool) -> WorkerHeartbeat {
        WorkerHeartbeat(
            id: configuration.id, host: ProcessInfo.processInfo.hostName, pid: Int(getpid()),
            pools: configuration.pools, procedures: configuration.registry.names,
            slots: configuration.concurrency, startedAt: startedAt, busy: busyNow(),
            interval: configuration.heartbeatInterval, stopping: stopping,
            schemas: withSchemas ? configuration.registry.schemas : nil, holding: stopping ? nil : holding())
    }
}
