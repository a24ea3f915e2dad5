import Baton
import BatonAMQP
import Foundation
import Logging

/// The publisher thread: sends reports and heartbeats with publisher confirms,
/// and only after the broker confirmed a result passes its task on to be acked.
final class ReportPublisher: @unchecked Sendable {
    // Safe: `connection` is touched only by the publisher thread.
    private let configuration: WorkerConfiguration
    private let mailbox: WorkerMailbox
    private let startedAt: Date
    private var connection: AMQPConnection?
    private var lastHeartbeat = Date.distantPast
    /// Heartbeats sent so far: the first and every `WorkerHeartbeat.schemasEvery`th carry the schemas.
    private var heartbeatsSent = 0

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
                let reports = mailbox.takeReports(timeout: 0.2)
                do {
                    try send(reports)
                } catch {
                    mailbox.putBack(reports)
                    throw error
                }
                if reports.isEmpty && done() {
                    // The last heartbeat says this worker is gone, so it leaves `baton workers` at once.
                    try? connection?.publish(
                        exchange: "", routingKey: BatonTopology.heartbeatsQueue,
                        body: heartbeat(stopping: true).encoded(), persistent: false)
                    try? connection?.waitForConfirms()
                    break
                }
            } catch {
                let delay = backoff.next()
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

    private func send(_ reports: [OutgoingReport]) throws {
        guard let connection else { return }
        let heartbeatDue = Date().timeIntervalSince(lastHeartbeat) >= configuration.heartbeatInterval
        if reports.isEmpty && !heartbeatDue { return }
        for report in reports {
            try connection.publish(exchange: "", routingKey: BatonTopology.resultsQueue, body: report.body, persistent: true)
        }
        if heartbeatDue {
            try connection.publish(
                exchange: "", routingKey: BatonTopology.heartbeatsQueue, body: heartbeat(stopping: false).encoded(),
                persistent: false)
        }
        try connection.waitForConfirms()
        if heartbeatDue {
            lastHeartbeat = Date()
            heartbeatsSent += 1
        }
        mailbox.confirmAcks(reports.compactMap(\.ack))
    }

    private func heartbeat(stopping: Bool) -> WorkerHeartbeat {
        let withSchemas = !stopping && heartbeatsSent % WorkerHeartbeat.schemasEvery == 0
        return WorkerHeartbeat(
            id: configuration.id, host: ProcessInfo.processInfo.hostName, pid: Int(getpid()),
            pools: configuration.pools, procedures: configuration.registry.names,
            slots: configuration.concurrency, startedAt: startedAt, busy: mailbox.busyCount,
            interval: configuration.heartbeatInterval, stopping: stopping,
            schemas: withSchemas ? configuration.registry.schemas : nil)
    }
}
