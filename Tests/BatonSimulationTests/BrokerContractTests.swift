import BatonAMQP
import Foundation
import Testing

@testable import BatonSimulation

/// The broker contract: the same scenarios through the real adapters on RabbitMQ and through the
/// simulator's `MemoryBroker`, which must tell the same story (as `StoreContractTests` does for stores).
@Suite("broker contract: RabbitMQ and MemoryBroker", .serialized)
struct BrokerContractTests {
    /// `scenario`'s transcript on both backends: they must agree, and RabbitMQ's is `expected`.
    static func onBoth(
        queueType: QueueType = .classic, expected: [String], _ scenario: (BrokerContractBackend) throws -> [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var transcripts: [String: [String]] = [:]
        for backend in [try BrokerContractBackend.rabbit(queueType: queueType), try BrokerContractBackend.memory(queueType: queueType)] {
            defer { backend.coordinator.close() }
            transcripts[backend.name] = try scenario(backend).map { $0.replacingOccurrences(of: backend.pool, with: "POOL") }
        }
        #expect(transcripts["rabbitmq"] == expected, sourceLocation: sourceLocation)
        #expect(transcripts["memory"] == transcripts["rabbitmq"], sourceLocation: sourceLocation)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static func line(_ task: InboundTask) -> String {
        "\(text(task.body)) redelivered=\(task.redelivered) deliveries=\(task.deliveries.map(String.init) ?? "-")"
    }

    static func line(_ message: CoordinatorInbound) -> String {
        switch message {
        case let .report(body, _): "report \(text(body))"
        case let .heartbeat(body, shared): "heartbeat \(text(body)) shared=\(shared != nil)"
        case let .deadLetter(body, deliveries, queue, _): "dead letter \(text(body)) deliveries=\(deliveries) queue=\(queue ?? "-")"
        case let .unrouted(body, deadLetter, _):
            "unrouted \(text(body)) dead letter=\(deadLetter.map { "\($0.deliveries) \($0.queue ?? "-")" } ?? "-")"
        }
    }

    @Test func tasksArePublishedConsumedInOrderAndAckedOnce() throws {
        try Self.onBoth(expected: [
            "published 1 2, confirmed through 2", "t1 redelivered=false deliveries=-", "t2 redelivered=false deliveries=-", "after acks: 0",
        ]) { b in
            let numbers = try b.publish(["t1", "t2"])
            let confirmed = try b.coordinator.confirmed()
            let worker = try b.worker("w1")
            defer { worker.close() }
            let tasks = try b.tasks(2, of: worker)
            for task in tasks { try worker.ack(task.receipt) }
            worker.close()
            let again = try b.worker("w2")
            defer { again.close() }
            return ["published \(numbers.map(String.init).joined(separator: " ")), confirmed through \(confirmed)"] + tasks.map(Self.line) + [
                "after acks: \(try b.tasks(1, of: again, noneDue: true).count)"
            ]
        }
    }

    @Test func aRejectedTaskGoesToTheDeadLetterQueue() throws {
        try Self.onBoth(expected: ["unrouted t1 dead letter=1 baton.tasks.POOL:contract"]) { b in
            _ = try b.publish(["t1"])
            let worker = try b.worker("w1")
            defer { worker.close() }
            for task in try b.tasks(1, of: worker) { try worker.reject(task.receipt, requeue: false) }
            let inbound = try b.inbound(1)
            for case let .unrouted(_, _, receipt) in inbound { try b.coordinator.ack(receipt) }
            return inbound.map(Self.line)
        }
    }

    @Test func reportsAreConfirmedThenReceivedInOrderAndAckedThrough() throws {
        try Self.onBoth(expected: ["published 1 2", "confirmed 2", "report r1", "report r2", "after ack: 0"]) { b in
            let reports = b.reports("w1")
            try reports.connect()
            defer { reports.close() }
            let numbers = [try reports.publishReport(Array("r1".utf8), partition: 0), try reports.publishReport(Array("r2".utf8), partition: 0)]
            b.settle()
            try reports.waitForConfirms()
            let confirmed = try reports.confirmed(timeout: 0, wakeup: nil)
            let inbound = try b.inbound(2)
            if case let .report(_, receipt) = inbound.last { try b.coordinator.ack(through: receipt) }
            return ["published \(numbers.map(String.init).joined(separator: " "))", "confirmed \(confirmed)"] + inbound.map(Self.line) + [
                "after ack: \(try b.inbound(1, noneDue: true).count)"
            ]
        }
    }

    @Test func aTaskUnackedWhenItsConsumerClosesIsRedelivered() throws {
        try Self.onBoth(expected: ["t1 redelivered=false deliveries=-", "t1 redelivered=true deliveries=-"]) { b in
            _ = try b.publish(["t1"])
            let first = try b.worker("w1")
            let taken = try b.tasks(1, of: first)
            first.close()
            let second = try b.worker("w2")
            defer { second.close() }
            let again = try b.tasks(1, of: second)
            for task in again { try second.ack(task.receipt) }
            return (taken + again).map(Self.line)
        }
    }

    /// The first delivery carries no count (RabbitMQ adds `x-delivery-count` from the first return on).
    @Test func aQuorumQueueCountsDeliveriesItself() throws {
        try Self.onBoth(
            queueType: .quorum, expected: ["t1 redelivered=false deliveries=- counted=false", "t1 redelivered=true deliveries=2 counted=true"]
        ) { b in
            _ = try b.publish(["t1"])
            let worker = try b.worker("w1")
            defer { worker.close() }
            var lines: [String] = []
            let first = try b.tasks(1, of: worker)
            for task in first { try worker.reject(task.receipt, requeue: true) }
            let second = try b.tasks(1, of: worker)
            for task in second { try worker.ack(task.receipt) }
            for task in first + second { lines.append(Self.line(task) + " counted=\(task.countedByBroker)") }
            return lines
        }
    }
}
