import BatonAMQP
import Testing

@testable import BatonSimulation

/// The twin does what RabbitMQ does when a task queue is deleted (as LostQueueTests checks on the
/// real broker): the consumer is told (`basic.cancel`) and consumes it again, on the same
/// connection, once it exists; a mandatory task no queue takes comes back; a purge empties it.
@Suite("MemoryBroker: task queues deleted or purged")
struct MemoryBrokerLostQueueTests {
    @Test func aWorkerConsumesItsDeletedQueueAgainOnceItExists() throws {
        let f = try MemoryBrokerFixture()
        let worker = try f.worker("w1", procedures: ["a", "b"])
        try f.publish(["t1", "t2"])
        #expect(f.broker.deleteQueue(MemoryBrokerFixture.queue) == 0)  // both were delivered already
        #expect(try worker.drain().compactMap { if case .cancelled(let queue) = $0 { queue } else { nil } } == [MemoryBrokerFixture.queue])
        #expect(try !worker.resume(queue: MemoryBrokerFixture.queue))
        try f.publish(["b1"], procedure: "b")  // the other queue is consumed all along
        #expect(try worker.drainTasks().map(\.text) == ["b1"])
        f.broker.declareTaskQueue(pool: "p", procedure: "a")
        #expect(try worker.resume(queue: MemoryBrokerFixture.queue))
        try f.publish(["t3"])
        #expect(try worker.drainTasks().map(\.text) == ["t3"])
    }

    @Test func aMandatoryTaskNoQueueTakesComesBackAndItsQueueIsDeclaredAgain() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["t1"])
        f.broker.deleteQueue(MemoryBrokerFixture.queue)
        try f.publish(["t2"])
        #expect(f.coordinator.takeReturned().map { String(decoding: $0, as: UTF8.self) } == ["t2"])
        #expect(f.coordinator.takeReturned().isEmpty)
        try f.publish(["t3"])  // the next publish declares the queue again
        #expect(f.broker.messages(in: MemoryBrokerFixture.queue).map(\.text) == ["t3"])
    }

    @Test func aPurgeEmptiesTheQueue() throws {
        let f = try MemoryBrokerFixture()
        try f.publish(["t1", "t2"])
        #expect(f.broker.purge(MemoryBrokerFixture.queue) == 2)
        #expect(try f.coordinator.taskQueueDepth(pool: "p", procedure: "a") == 0)
    }
}
