import BatonAMQP
import Testing

@testable import BatonSimulation

@Suite("MemoryBroker: delivery")
struct MemoryBrokerDeliveryTests {
    @Test func prefetchLimitsUnackedTasksUntilOneIsAcked() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1", prefetch: 2)
        try f.publish(["t1", "t2", "t3", "t4", "t5"])
        let first = try worker.drainTasks()
        #expect(first.map(\.text) == ["t1", "t2"])
        #expect(f.broker.unacked(of: "w1").count == 2)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t3", "t4", "t5"])
        try worker.ack(first[0].receipt)
        #expect(try worker.drainTasks().map(\.text) == ["t3"])
        #expect(f.broker.acks.map(\.message.text) == ["t1"])
    }

    @Test func prefetchIsSharedByEveryTaskQueueOfAWorker() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["a1", "a2"], procedure: "a")
        try f.publish(["b1", "b2"], procedure: "b")
        let worker = try f.worker("w1", procedures: ["a", "b"], prefetch: 3)
        let tasks = try worker.drainTasks()
        #expect(tasks.count == 3)
        #expect(Set(tasks.map(\.text)).isSuperset(of: ["a1", "b1"]))
    }

    @Test func higherPriorityFirstThenFirstInFirstOut() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["low1"], priority: 1)
        try f.publish(["high1", "high2"], priority: 5)
        try f.publish(["zero"], priority: 0)
        try f.publish(["high3"], priority: 5)
        try f.publish(["over"], priority: 200)  // above x-max-priority: counts as 9
        let expected = ["over", "high1", "high2", "high3", "low1", "zero"]
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == expected)
        let worker = try f.worker("w1")
        #expect(try worker.drainTasks().map(\.text) == expected)
    }

    @Test func consumersOfOneQueueTakeTurns() throws {
        let f = try MemoryBrokerFixture()
        let w1 = try f.worker("w1")
        let w2 = try f.worker("w2")
        try f.publish(["t1", "t2", "t3", "t4"])
        #expect(try w1.drainTasks().map(\.text) == ["t1", "t3"])
        #expect(try w2.drainTasks().map(\.text) == ["t2", "t4"])
    }

    @Test func aWorkerThatDoesNotConsumeGetsNoTasksButHearsCancels() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1", consume: false)
        try f.publish(["t1"])
        _ = try f.coordinator.publishCancel(body: bytes("stop"))
        f.broker.deliverConfirms()
        #expect(try worker.drain() == [.control(body: bytes("stop"))])
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t1"])
    }

    @Test func stopConsumingKeepsWhatWasDeliveredAndTakesNoMore() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1", prefetch: 1)
        try f.publish(["t1", "t2"])
        worker.stopConsuming()
        let tasks = try worker.drainTasks()
        #expect(tasks.map(\.text) == ["t1"])
        try worker.ack(tasks[0].receipt)
        #expect(try worker.drainTasks().isEmpty)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t2"])
    }

    @Test func cancelsFanOutToEveryLiveWorkerOnly() throws {
        let f = try MemoryBrokerFixture()
        let w1 = try f.worker("w1")
        let w2 = try f.worker("w2")
        let gone = try f.worker("w3")
        gone.close()
        _ = try f.coordinator.publishCancel(body: bytes("c1"))
        #expect(try w1.drain().isEmpty)  // in flight until the simulator delivers it
        f.broker.deliverConfirms()
        let late = try f.worker("w4")
        #expect(try w1.drain() == [.control(body: bytes("c1"))])
        #expect(try w2.drain() == [.control(body: bytes("c1"))])
        #expect(try late.drain().isEmpty)
        #expect(f.broker.unacked(of: "w1").isEmpty)  // consumed without acks
    }

    @Test func heartbeatsReachTheCoordinatorTwiceWithoutAcks() throws {
        let f = try MemoryBrokerFixture()
        let reports = f.broker.workerReports(name: "w1-reports")
        try reports.connect()
        _ = try reports.publishHeartbeat(bytes("hb"))
        _ = try reports.publishReport(bytes("r1"), partition: 0)
        try reports.waitForConfirms()
        let inbound = try f.coordinator.drain()
        // Once on its own queue (its leases, no ack), once on the shared one (to record the worker, acked after).
        #expect(inbound.count == 3)
        let beats = inbound.compactMap { m -> BrokerReceipt?? in if case let .heartbeat(body, shared) = m, body == bytes("hb") { shared } else { nil }
        }
        #expect(beats.count == 2)
        #expect(beats.filter { $0 == nil }.count == 1, "one from the coordinator's own queue")
        let shared = try #require(beats.compactMap { $0 }.first)
        #expect(f.broker.unacked(of: "coordinator").map(\.message.text).sorted() == ["hb", "r1"])
        try f.coordinator.ack(through: shared)
        #expect(f.broker.unacked(of: "coordinator").map(\.message.text) == ["r1"])
    }

    @Test func taskQueueDepthCountsReadyTasks() throws {
        let f = try MemoryBrokerFixture()
        #expect(try f.coordinator.taskQueueDepth(pool: "p", procedure: "a") == 0)
        try f.publish(["t1", "t2"])
        #expect(try f.coordinator.taskQueueDepth(pool: "p", procedure: "a") == 2)
    }

    @Test func aTaskForAQueueNobodyDeclaredIsDeclaredByTheCoordinatorsPublish() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["t1"], procedure: "new")
        #expect(f.broker.messages(in: BatonTopology.taskQueue(pool: "p", procedure: "new")).map(\.text) == ["t1"])
    }
}
