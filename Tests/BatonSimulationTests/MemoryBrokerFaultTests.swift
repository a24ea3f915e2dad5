import BatonAMQP
import Testing

@testable import BatonSimulation

@Suite("MemoryBroker: faults")
struct MemoryBrokerFaultTests {
    @Test func aDroppedConnectionsTasksComeBackRedeliveredInOrder() throws {
        let f = try MemoryBrokerFixture()
        let w1 = try f.worker("w1")
        try f.publish(["t1", "t2", "t3"])
        let taken = try w1.drainTasks()
        #expect(taken.map(\.redelivered) == [false, false, false])
        #expect(f.broker.drop("w1", keepUnconfirmed: true) == 1)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t1", "t2", "t3"])
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).allSatisfy { $0.redelivered })
        #expect(throws: AMQPError.self) { try w1.receive(timeout: 0, wakeup: nil) }
        do {
            try w1.ack(taken[0].receipt)
            Issue.record("an ack on a lost connection must throw")
        } catch let error as AMQPError {
            #expect(error.isConnectionLost)
        }
        let w2 = try f.worker("w2")
        let again = try w2.drainTasks()
        #expect(again.map(\.text) == ["t1", "t2", "t3"])
        #expect(again.allSatisfy { $0.redelivered })
    }

    /// A process cut off from the broker (`cut`, the `broker-cut` fault): its calls fail and it cannot
    /// connect, but the broker holds its unacked tasks until it notices (`noticeCut`), then redelivers
    /// them to others; healed, the process connects again.
    @Test func aCutOffWorkersTasksComeBackOnlyOnceTheBrokerNotices() throws {
        let f = try MemoryBrokerFixture()
        let w1 = try f.worker("worker-1.1-tasks")
        try f.publish(["t1", "t2"])
        let taken = try w1.drainTasks()
        #expect(taken.map(\.text) == ["t1", "t2"])
        f.broker.cut("worker-1.")
        #expect(throws: AMQPError.self) { try w1.ack(taken[0].receipt) }
        #expect(throws: AMQPError.self) { try w1.connect(pools: ["p"], procedures: ["a"], prefetch: 10, consume: true) }
        let w2 = try f.worker("worker-2.1-tasks")
        #expect(try w2.drainTasks().isEmpty, "the broker still holds them with the cut-off connection")
        #expect(f.broker.noticeCut("worker-1.", keepUnconfirmed: false) == 1)
        #expect(try w2.drainTasks().map(\.text) == ["t1", "t2"])
        #expect(f.broker.acks.isEmpty)
        f.broker.healCut("worker-1.")
        try w1.connect(pools: ["p"], procedures: ["a"], prefetch: 10, consume: true)
        try f.publish(["t3"])
        #expect(try (w1.drainTasks() + w2.drainTasks()).map(\.text) == ["t3"])
    }

    @Test func aRequeuedTaskGoesBackToItsPlace() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1", prefetch: 1)
        try f.publish(["t1", "t2"])
        let first = try #require(try worker.drainTasks().first)
        try worker.reject(first.receipt, requeue: true)
        let again = try #require(try worker.drainTasks().first)
        #expect(again.text == "t1")
        #expect(again.redelivered)
    }

    @Test func aReceiptFromAnOlderConnectionAcksNothing() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1")
        try f.publish(["t1"])
        let old = try #require(try worker.drainTasks().first)
        try worker.connect(pools: ["p"], procedures: ["a"], prefetch: 10, consume: true)
        let new = try #require(try worker.drainTasks().first)
        #expect(new.text == "t1" && new.redelivered)
        try worker.ack(old.receipt)
        try worker.reject(old.receipt, requeue: false)
        try worker.handBack([old])
        #expect(f.broker.acks.isEmpty)
        #expect(f.broker.protocolErrors.isEmpty)
        #expect(f.broker.unacked(of: "w1").map(\.message.text) == ["t1"])
        try worker.ack(new.receipt)
        #expect(f.broker.acks.map(\.message.text) == ["t1"])
    }

    @Test func anOldReportReceiptAcksNothingAfterTheCoordinatorReconnects() throws {
        let f = try MemoryBrokerFixture()
        let reports = f.broker.workerReports(name: "r")
        try reports.connect()
        _ = try reports.publishReport(bytes("r1"), partition: 0)
        try reports.waitForConfirms()
        guard case .report(_, let old) = try #require(try f.coordinator.drain().first) else {
            Issue.record("expected a report")
            return
        }
        try f.coordinator.connect(prefetch: 10, partitions: 1, silence: 10)
        try f.coordinator.consume(partitions: [0])
        try f.coordinator.ack(through: old)
        #expect(f.broker.acks.isEmpty)
        #expect(try f.coordinator.drain() == [.report(body: bytes("r1"), receipt: BrokerReceipt(generation: 4, tag: 1, channel: 1))])
    }

    @Test func aTaskRejectedWithoutRequeueIsADeadLetterWithItsCountAndQueue() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1")
        try f.publish(["t1"])
        let first = try #require(try worker.drainTasks().first)
        try worker.republish(first, deliveries: 3)
        #expect(f.broker.acks.map(\.message.text) == ["t1"])
        let copy = try #require(try worker.drainTasks().first)
        #expect(copy.text == "t1" && copy.deliveries == 3 && !copy.redelivered)
        try worker.reject(copy.receipt, requeue: false)
        let inbound = try f.coordinator.drain()
        guard case .unrouted(let body, let origin?, let receipt) = try #require(inbound.first) else {
            Issue.record("expected a dead letter, got \(inbound)")
            return
        }
        #expect(body == bytes("t1") && origin.deliveries == 3 && origin.queue == MemoryBrokerFixture.queue)
        try f.coordinator.ack(receipt)
        #expect(f.broker.acks.last?.queue == BatonTopology.deadLettersQueue)
    }

    @Test func aRejectedReportIsADeadLetterCountedOnce() throws {
        let f = try MemoryBrokerFixture()
        let reports = f.broker.workerReports(name: "r")
        try reports.connect()
        _ = try reports.publishReport(bytes("junk"), partition: 0)
        try reports.waitForConfirms()
        guard case .report(_, let receipt) = try #require(try f.coordinator.drain().first) else {
            Issue.record("expected a report")
            return
        }
        try f.coordinator.reject(receipt)
        let dead = try f.coordinator.drain()
        guard case .unrouted(_, let origin?, _) = try #require(dead.first) else {
            Issue.record("expected a dead letter, got \(dead)")
            return
        }
        #expect(origin.deliveries == 1 && origin.queue == BatonTopology.resultsQueue(partition: 0))
    }

    @Test func handBackPutsCopiesBackAsTheyCameAndAcksTheOriginals() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1")
        try f.publish(["t1"], priority: 7)
        let first = try #require(try worker.drainTasks().first)
        try worker.republish(first, deliveries: 2)
        let tasks = try worker.drainTasks()
        worker.stopConsuming()
        try worker.handBack(tasks)
        #expect(f.broker.acks.map(\.message.text) == ["t1", "t1"])
        let back = f.broker.messages(in: MemoryBrokerFixture.queue)
        #expect(back.map(\.text) == ["t1"])
        #expect(back.first?.deliveries == 2 && back.first?.priority == 7 && back.first?.redelivered == false)
    }

    @Test func aPublishCanFailInTheMiddleOfABatch() throws {
        for keep in [false, true] {
            let f = try MemoryBrokerFixture()
            let reports = f.broker.workerReports(name: "r")
            try reports.connect()
            f.broker.failPublish(of: "r", after: 2, keepUnconfirmed: keep)
            _ = try reports.publishReport(bytes("r1"), partition: 0)
            _ = try reports.publishReport(bytes("r2"), partition: 0)
            #expect(throws: AMQPError.self) { try reports.publishReport(bytes("r3"), partition: 0) }
            #expect(throws: AMQPError.self) { try reports.confirmed(timeout: 0, wakeup: nil) }
            let arrived = try f.coordinator.drain().count
            #expect(arrived == (keep ? 2 : 0))
            try reports.connect()
            #expect(try reports.publishReport(bytes("r4"), partition: 0) == 1)
        }
    }

    @Test func aPublishFailureCanBeAimedAtTheNextConnection() throws {
        let f = try MemoryBrokerFixture()
        f.broker.failPublish(of: "r", after: 0, keepUnconfirmed: false)
        let reports = f.broker.workerReports(name: "r")
        try reports.connect()
        #expect(throws: AMQPError.self) { try reports.publishReport(bytes("r1"), partition: 0) }
    }

    @Test func aDuplicatedDeliveryGoesOutAgainWhileTheFirstIsUnacked() throws {
        let f = try MemoryBrokerFixture()
        let w1 = try f.worker("w1")
        try f.publish(["t1"])
        let held = try #require(try w1.drainTasks().first)
        w1.stopConsuming()  // the copy goes to w2 (it could go to w1 as well)
        let w2 = try f.worker("w2")
        let delivery = try #require(f.broker.unacked(of: "w1").first)
        #expect(f.broker.duplicate(delivery))
        let copy = try #require(try w2.drainTasks().first)
        #expect(copy.text == "t1" && copy.redelivered)
        try w1.ack(held.receipt)
        try w2.ack(copy.receipt)
        #expect(f.broker.acks.map(\.connection) == ["w1", "w2"])
        #expect(!f.broker.duplicate(delivery))
    }

    @Test func droppingTheCoordinatorsPublisherAloneLeavesItsConsumer() throws {
        let f = try MemoryBrokerFixture()
        _ = try f.coordinator.publishTask(pool: "p", procedure: "a", body: bytes("t1"), priority: 0, queuedAt: nil)
        f.broker.drop("coordinator-publish", keepUnconfirmed: false)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).isEmpty)
        #expect(throws: AMQPError.self) { try f.coordinator.confirmed() }
        #expect(try f.coordinator.receive(timeout: 0, confirmsDue: true) == nil)
        #expect(f.broker.connectionNames == ["coordinator-consume"])
    }

    @Test func aBrokerRestartKeepsPersistentMessagesOnly() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["t1"])
        f.coordinator.close()
        let reports = f.broker.workerReports(name: "r")
        try reports.connect()
        _ = try reports.publishHeartbeat(bytes("hb"))
        _ = try reports.publishReport(bytes("r1"), partition: 0)
        try reports.waitForConfirms()
        f.broker.restart(keepUnconfirmed: true)
        #expect(f.broker.connectionNames.isEmpty)
        #expect(f.broker.messages(in: BatonTopology.resultsQueue(partition: 0)).map(\.text) == ["r1"])
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t1"])
        #expect(f.broker.purge(MemoryBrokerFixture.queue) == 1)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).isEmpty)
        f.broker.refusesConnections = true
        #expect(throws: AMQPError.self) { try reports.connect() }
    }
}
