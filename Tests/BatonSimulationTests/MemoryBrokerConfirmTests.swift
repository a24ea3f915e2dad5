import BatonAMQP
import Testing

@testable import BatonSimulation

@Suite("MemoryBroker: confirms and acks")
struct MemoryBrokerConfirmTests {
    @Test func publishesAreConfirmedOnlyWhenTheSimulatorSaysSo() throws {
        let f = try MemoryBrokerFixture()
        let numbers = try (1...3).map { _ in
            try f.coordinator.publishTask(pool: "p", procedure: "a", body: bytes("t"), priority: 0, queuedAt: nil)
        }
        #expect(numbers == [1, 2, 3])
        #expect(try f.coordinator.confirmed() == 0)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).isEmpty)
        f.broker.deliverPublishes()
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).count == 3)
        #expect(try f.coordinator.confirmed() == 0)
        #expect(f.broker.unconfirmed(of: "coordinator") == 3)
        f.broker.deliverConfirms(of: "coordinator")
        #expect(try f.coordinator.confirmed() == 3)
        _ = try f.coordinator.publishCancel(body: bytes("c"))
        #expect(try f.coordinator.confirmed() == 3)
        try f.coordinator.waitForConfirms()
        #expect(try f.coordinator.confirmed() == 4)
    }

    @Test func confirmsAreDeliveredPerConnectionAndSequencesRestartOnConnect() throws {
        let f = try MemoryBrokerFixture()
        let r1 = f.broker.workerReports(name: "r1")
        let r2 = f.broker.workerReports(name: "r2")
        try r1.connect()
        try r2.connect()
        #expect(try r1.publishReport(bytes("a"), partition: 0) == 1)
        #expect(try r1.publishReport(bytes("b"), partition: 0) == 2)
        #expect(try r2.publishReport(bytes("c"), partition: 0) == 1)
        f.broker.deliverConfirms(of: "r1")
        #expect(try r1.confirmed(timeout: 5, wakeup: nil) == 2)
        #expect(try r2.confirmed(timeout: 5, wakeup: nil) == 0)
        try r2.connect()
        #expect(try r2.confirmed(timeout: 0, wakeup: nil) == 0)
        #expect(try r2.publishReport(bytes("d"), partition: 0) == 1)
        // The report published before the reconnect arrived (closing sends what was sent).
        #expect(f.broker.messages(in: BatonTopology.resultsQueue(partition: 0)).count == 0)
        #expect(try f.coordinator.drain().count == 3)
    }

    @Test func reportAcksAreCumulativeWithinThePrefetch() throws {
        let f = try MemoryBrokerFixture(prefetch: 3)
        let reports = f.broker.workerReports(name: "r")
        try reports.connect()
        for body in ["r1", "r2", "r3", "r4"] { _ = try reports.publishReport(bytes(body), partition: 0) }
        try reports.waitForConfirms()
        let inbound = try f.coordinator.drain()
        #expect(inbound.count == 3)
        guard case .report(_, let second) = inbound[1] else {
            Issue.record("expected a report, got \(inbound[1])")
            return
        }
        try f.coordinator.ack(through: second)
        #expect(f.broker.acks.map(\.message.text) == ["r1", "r2"])
        #expect(f.broker.unacked(of: "coordinator").map(\.message.text) == ["r3", "r4"])
        #expect(f.broker.messages(in: BatonTopology.resultsQueue(partition: 0)).isEmpty)
    }

    @Test func theAckHookSeesEveryAckInOrder() throws {
        let f = try MemoryBrokerFixture()
        var seen: [String] = []
        f.broker.onAck = { seen.append("\($0.connection) \($0.queue) \($0.message.text)") }
        let worker = try f.worker("w1")
        try f.publish(["t1", "t2"])
        for task in try worker.drainTasks().reversed() { try worker.ack(task.receipt) }
        #expect(seen == ["w1 \(MemoryBrokerFixture.queue) t2", "w1 \(MemoryBrokerFixture.queue) t1"])
        #expect(f.broker.acks.map(\.tag) == [2, 1])
    }

    @Test func anUnknownDeliveryTagIsAProtocolErrorThatClosesTheConnection() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1")
        try f.publish(["t1"])
        let task = try #require(try worker.drainTasks().first)
        try worker.ack(task.receipt)
        #expect {
            try worker.ack(task.receipt)
        } throws: { error in
            (error as? AMQPError)?.kind == .channelClosed && (error as? AMQPError)?.replyCode == 406
        }
        #expect(f.broker.protocolErrors.count == 1)
        #expect(throws: AMQPError.self) { try worker.receive(timeout: 0, wakeup: nil) }
    }
}
