import Baton
import BatonAMQP
import Foundation
import Logging

/// The publisher thread: sends reports and heartbeats with publisher confirms, without waiting
/// for one batch's confirms before publishing the next, and passes a result's task on to be
/// acked only once the broker confirmed it. What to do next is `PublisherStateMachine`'s
/// decision; this thread carries it out and feeds back what happened.
final class ReportPublisher: @unchecked Sendable {
    // Safe: `connection` and `machine` are touched only by the publisher thread.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private let startedAt: Date
    private var connection: AMQPConnection?
    private var machine: PublisherStateMachine

    /// Reports taken and not yet confirmed, at most.
    static let window = 1_000

    init(configuration: WorkerConfiguration, mailbox: WorkerMailbox, startedAt: Date) {
        self.configuration = configuration
        self.mailbox = mailbox
        self.startedAt = startedAt
        machine = PublisherStateMachine(window: Self.window, heartbeatInterval: configuration.heartbeatInterval)
    }

    /// Runs until `done()` says there is nothing left to send.
    func run(until done: @escaping () -> Bool) {
        var backoff = Backoff()
        while true {
            do {
                if connection == nil {
                    let c = try AMQPConnection(url: configuration.amqpURL, connectionName: "baton-worker-publish \(configuration.id)")
                    try c.enableConfirms()
                    try BatonTopology.declareCommon(on: c)
                    connection = c
                    backoff.reset()
                }
                try step()
                if machine.isSettled && mailbox.hasNoReports && done() {
                    // The last heartbeat says this worker is gone, so it leaves `baton workers` at once.
                    _ = try? connection?.publish(
                        exchange: "", routingKey: BatonTopology.heartbeatsQueue,
                        body: heartbeat(stopping: true, withSchemas: false).encoded(), persistent: false)
                    try? connection?.waitForConfirms()
                    break
                }
            } catch {
                mailbox.putBack(machine.connectionLost())
                let delay = backoff.delay(after: error)
                configuration.logger.error("worker publisher: \(error); reconnecting in \(String(format: "%.1f", delay)) s")
                connection?.close()
                connection = nil
                if done() { break }
                Thread.sleep(forTimeInterval: delay)
            }
        }
        connection?.close()
        connection = nil
    }

    /// Publishes what is waiting (as the window allows) and a heartbeat if due, then reads the
    /// confirms that came, waiting a little for them or for new reports.
    private func step() throws {
        guard let connection else { return }
        machine.taken(mailbox.takeReports(limit: machine.room))
        while true {
            switch machine.next(now: Date()) {
            case let .publishReport(body):
                machine.published(
                    sequence: try connection.publish(exchange: "", routingKey: BatonTopology.resultsQueue, body: body, persistent: true))
            case let .publishHeartbeat(withSchemas):
                machine.published(
                    sequence: try connection.publish(
                        exchange: "", routingKey: BatonTopology.heartbeatsQueue,
                        body: heartbeat(stopping: false, withSchemas: withSchemas).encoded(), persistent: false))
            case let .readConfirms(wakeOnReports):
                let settled = try connection.readConfirms(timeout: 0.2, wakeup: wakeOnReports ? mailbox.publisherWakeup : nil)
                mailbox.confirmed(machine.confirmed(through: settled))
                return
            }
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
            schemas: withSchemas ? configuration.registry.schemas : nil)
    }
}
