import BatonAMQP
import Foundation
import Testing

/// A queue deleted under its clients, on the real broker: a mandatory publish that finds no queue
/// comes back (`basic.return`), and a worker's consumer cancelled by the broker (`basic.cancel`)
/// is told as such and consumes the queue again once it exists, on the same connection.
@Suite struct LostQueueTests {
    @Test func aMandatoryPublishNoQueueTakesComesBack() throws {
        let missing = Broker.unique("nowhere")
        let publisher = try Broker.connect("baton-tests-returns")
        defer { publisher.close() }
        try publisher.enableConfirms()
        try publisher.publish(exchange: "", routingKey: missing, body: "lost".bytes, mandatory: true)
        try publisher.publish(exchange: "", routingKey: missing, body: "dropped".bytes)  // not mandatory: dropped silently
        try publisher.waitForConfirms(timeout: 10)  // a returned publish is confirmed too, after its return
        let returned = publisher.takeReturned()
        #expect(returned.map(\.routingKey) == [missing])
        #expect(returned.map { String(decoding: $0.body, as: UTF8.self) } == ["lost"])
        #expect(publisher.takeReturned().isEmpty)
    }

    @Test func aWorkerConsumesItsDeletedQueueAgainOnceItExists() throws {
        let pool = Broker.unique("pool")
        let queue = BatonTopology.taskQueue(routingKey: BatonTopology.routingKey(pool: pool, procedure: "p"))
        let other = BatonTopology.taskQueue(routingKey: BatonTopology.routingKey(pool: pool, procedure: "q"))
        let admin = try Broker.connect("baton-tests-admin")
        defer {
            _ = try? admin.deleteQueue(name: queue)
            _ = try? admin.deleteQueue(name: other)
            admin.close()
        }
        // `baton migrate` declares the topology and the coordinator the task queues, as before its first
        // publish: a worker declares nothing durable (and the vhost may be new).
        try BatonTopology.declareCommon(on: admin)
        try BatonTopology.declareTaskQueues(pool: pool, procedure: "p", on: admin)
        try BatonTopology.declareTaskQueues(pool: pool, procedure: "q", on: admin)
        let worker = AMQPWorkerTaskBroker(url: Broker.url, connectionName: "baton-tests-worker", heartbeatSeconds: 30)
        defer { worker.close() }
        try worker.connect(pools: [pool], procedures: ["p", "q"], prefetch: 4, consume: true)
        try admin.deleteQueue(name: queue)

        let deadline = Date(timeIntervalSinceNow: 10)
        var told: WorkerInbound?
        while told == nil, deadline.timeIntervalSinceNow > 0 { told = try worker.receive(timeout: 0.5, wakeup: nil) }
        #expect(told == .cancelled(queue: queue))
        #expect(try !worker.resume(queue: queue), "the queue does not exist yet")
        #expect(try !worker.resume(queue: queue), "looking again (the probe channel the broker closed is opened again)")

        // The other queue was consumed all along, on the same connection.
        try admin.publish(exchange: "", routingKey: other, body: "still".bytes)
        var task: WorkerInbound?
        while task == nil, deadline.timeIntervalSinceNow > 0 { task = try worker.receive(timeout: 0.5, wakeup: nil) }
        guard case let .task(still) = task else {
            Issue.record("no task from the other queue: \(String(describing: task))")
            return
        }
        #expect(String(decoding: still.body, as: UTF8.self) == "still")
        try worker.ack(still.receipt)

        try BatonTopology.declareTaskQueues(pool: pool, procedure: "p", on: admin)
        #expect(try worker.resume(queue: queue))
        try admin.publish(exchange: "", routingKey: queue, body: "again".bytes)
        task = nil
        while task == nil, deadline.timeIntervalSinceNow > 0 { task = try worker.receive(timeout: 0.5, wakeup: nil) }
        guard case let .task(again) = task else {
            Issue.record("no task after the queue came back: \(String(describing: task))")
            return
        }
        #expect(String(decoding: again.body, as: UTF8.self) == "again")
        try worker.ack(again.receipt)
    }
}
