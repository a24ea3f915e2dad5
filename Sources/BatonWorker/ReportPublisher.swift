import Baton
import BatonAMQP
import Foundation
import Logging

/// The publisher thread: sends reports and heartbeats with publisher confirms, without waiting
/// for one batch's confirms before publishing the next (`ReportPipeline` keeps what is in
/// flight), and passes a result's task on to be acked only once the broker confirmed it.
final class ReportPublisher: @unchecked Sendable {
    // Safe: `connection`, `pipeline` and the heartbeat counters are touched only by the publisher thread.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private let startedAt: Date
    private var connection: AMQPConnection?
    private var pipeline = ReportPipeline(window: ReportPublisher.window)
    private var lastHeartbeat = Date.distantPast
    /// Heartbeats sent so far: the first and every `WorkerHeartbeat.schemasEvery`th carry the schemas.
    private var heartbeatsSent = 0

    /// Reports published and not yet confirmed, at most.
    static let window = 1_000

    init(configuration: WorkerConfiguration, mailbox: WorkerMailbox, startedAt: Date) {
        self.configuration = configuration
        self.mailbox = mailbox
        self.startedAt = startedAt
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
                if pipeline.isEmpty && mailbox.hasNoReports && done() {
                    // The last heartbeat says this worker is gone, so it leaves `baton workers` at once.
                    try? connection?.publish(
                        exchange: "", routingKey: BatonTopology.heartbeatsQueue,
                        body: heartbeat(stopping: true).encoded(), persistent: false)
                    try? connection?.waitForConfirms()
                    break
                }
            } catch {
                mailbox.putBack(pipeline.takeUnconfirmed())
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
        let reports = mailbox.takeReports(limit: pipeline.room)
        for report in reports {
            let sequence = try connection.publish(
                exchange: "", routingKey: BatonTopology.resultsQueue, body: report.body, persistent: true)
            pipeline.published(report, sequence: sequence)
        }
        if Date().timeIntervalSince(lastHeartbeat) >= configuration.heartbeatInterval {
            let sequence = try connection.publish(
                exchange: "", routingKey: BatonTopology.heartbeatsQueue, body: heartbeat(stopping: false).encoded(),
                persistent: false)
            pipeline.published(nil, sequence: sequence)
            lastHeartbeat = Date()
            heartbeatsSent += 1
        }
        // Confirms are awaited while new reports can still wake the wait and go out; a full
        // window waits for confirms only.
        let settled = try connection.readConfirms(timeout: 0.2, wakeup: pipeline.isFull ? nil : mailbox.publisherWakeup)
        mailbox.confirmed(pipeline.confirmed(through: settled))
    }

    /// Slots busy now, also recorded as `baton_worker_slots_busy`.
    private func busyNow() -> Int {
        let busy = mailbox.busyCount
        configuration.metrics?.busy(busy)
        return busy
    }

    private func heartbeat(stopping: Bool) -> WorkerHeartbeat {
        let withSchemas = !stopping && heartbeatsSent % WorkerHeartbeat.schemasEvery == 0
        return WorkerHeartbeat(
            id: configuration.id, host: ProcessInfo.processInfo.hostName, pid: Int(getpid()),
            pools: configuration.pools, procedures: configuration.registry.names,
            slots: configuration.concurrency, startedAt: startedAt, busy: busyNow(),
            interval: configuration.heartbeatInterval, stopping: stopping,
            schemas: withSchemas ? configuration.registry.schemas : nil)
    }
}
