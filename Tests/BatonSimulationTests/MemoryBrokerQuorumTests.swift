import BatonAMQP
import Testing

@testable import BatonSimulation

/// The twin's quorum queues, as `BatonTopology` declares them and RabbitMQ runs them.
@Suite("MemoryBroker: quorum queues")
struct MemoryBrokerQuorumTests {
    static func queue(priority: Int) -> String {
        BatonTopology.taskQueue(routingKey: BatonTopology.routingKey(pool: "p", procedure: "a", priority: priority, queueType: .quorum))
    }

    @Test func tasksGoToTheirBandsQueueFirstInFirstOut() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        try f.publish(["low"], priority: 1)
        try f.publish(["high"], priority: 8)
        try f.publish(["mid"], priority: 5)
        try f.publish(["zero"], priority: 0)
        #expect(f.broker.queueType == .quorum)
        #expect(f.broker.messages(in: Self.queue(priority: 0)).map(\.text) == ["low", "zero"])
        #expect(f.broker.messages(in: Self.queue(priority: 3)).map(\.text) == ["mid"])
        #expect(f.broker.messages(in: Self.queue(priority: 7)).map(\.text) == ["high"])
        #expect(Self.queue(priority: 0) == MemoryBrokerFixture.queue, "the lowest band keeps the classic name")
        #expect(try f.coordinator.taskQueueDepth(pool: "p", procedure: "a") == 4)
    }

    @Test func eachConsumerHasAShareOfThePrefetch() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        try f.publish(["l1", "l2", "l3"], priority: 0)
        try f.publish(["h1", "h2", "h3"], priority: 9)
        let worker = try f.worker("w1", prefetch: 4)  // three queues: two each
        #expect(Set(try worker.drainTasks().map(\.text)) == ["l1", "l2", "h1", "h2"])
    }

    @Test func redeliveriesCarryTheQueuesCount() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        try f.publish(["t1"])
        let w1 = try f.worker("w1")
        let first = try #require(try w1.drainTasks().first)
        #expect(first.deliveries == nil && !first.countedByBroker)
        try w1.reject(first.receipt, requeue: true)
        let second = try #require(try w1.drainTasks().first)
        #expect(second.deliveries == 2 && second.countedByBroker && second.redelivered)
        f.broker.drop("w1", keepUnconfirmed: false)
        let w2 = try f.worker("w2")
        #expect(try w2.drainTasks().first?.deliveries == 3)
    }

    @Test func aTaskReturnedPastTheLimitIsDeadLetteredWithItsCount() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        try f.publish(["t1"])
        let worker = try f.worker("w1")
        for _ in 0...QueueType.deliveryLimit {
            let task = try #require(try worker.drainTasks().first)
            try worker.reject(task.receipt, requeue: true)
        }
        #expect(try worker.drainTasks().isEmpty)
        let dead = try #require(f.broker.unacked(of: "coordinator").first { $0.queue == BatonTopology.deadLettersQueue }?.message)
        #expect(dead.deliveryCount == QueueType.deliveryLimit && dead.deathQueue == MemoryBrokerFixture.queue)
        let inbound = try f.coordinator.drain()
        guard case let .unrouted(_, deadLetter, _) = try #require(inbound.first) else { Issue.record("\(inbound)"); return }
        #expect(deadLetter?.deliveries == QueueType.deliveryLimit + 1)
    }

    @Test func aWorkerDeadLettersACountedTaskAsACopyWithTheCount() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        try f.publish(["t1"])
        let worker = try f.worker("w1")
        try worker.reject(try #require(try worker.drainTasks().first).receipt, requeue: true)
        let counted = try #require(try worker.drainTasks().first)
        try worker.deadLetter(counted, deliveries: 1)
        #expect(f.broker.acks.map(\.message.text) == ["t1"])
        let dead = try #require(f.broker.unacked(of: "coordinator").first { $0.queue == BatonTopology.deadLettersQueue }?.message)
        #expect(dead.deliveries == 1 && dead.deathQueue == MemoryBrokerFixture.queue && dead.publisher == "w1")
        #expect(worker.held.isEmpty)
    }

    @Test func aCopyGivenOutAgainGoesWithTheMessage() throws {
        let f = try MemoryBrokerFixture(queueType: .quorum)
        let w1 = try f.worker("w1", prefetch: 1)
        try f.publish(["t1"])
        let held = try #require(f.broker.unacked(of: "w1").first)
        let w2 = try f.worker("w2")
        #expect(f.broker.duplicate(held))
        let copy = try #require(try w2.drainTasks().first)
        #expect(copy.deliveries == 2)
        try w2.ack(copy.receipt)
        f.broker.drop("w1", keepUnconfirmed: false)
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).isEmpty, "acked once, the message is gone: its stale copy does not come back")
        _ = w1
    }

    @Test func theStoreSaysWhatMigrateRecorded() throws {
        let store = MemoryStore()
        #expect(try store.connect().queueType() == "classic")
        store.queueType = .quorum
        #expect(try store.connect().queueType() == "quorum")
    }
}
