import BatonAMQP
import Foundation
import Testing

@Suite struct PublishConsumeTests {
    @Test func thousandConfirmedPersistentMessagesComeBackInOrder() throws {
        let queue = Broker.unique("bulk")
        let publisher = try Broker.connect("baton-tests-publisher")
        defer { _ = try? publisher.deleteQueue(name: queue) }
        try publisher.declareQueue(name: queue, durable: true)
        try publisher.enableConfirms()

        var sequence: UInt64 = 0
        for index in 0..<1000 {
            sequence = try publisher.publish(
                exchange: "", routingKey: queue, body: "message-\(index)".bytes, persistent: true)
        }
        #expect(sequence == 1000)
        try publisher.waitForConfirms(timeout: 30)
        #expect(try publisher.declareQueue(name: queue, passive: true).messageCount == 1000)

        let consumer = try Broker.connect("baton-tests-consumer")
        try consumer.setPrefetch(50)
        let tag = try consumer.consume(queue: queue)
        var received: [String] = []
        let deadline = Date(timeIntervalSinceNow: 30)
        while received.count < 1000, deadline.timeIntervalSinceNow > 0 {
            guard let delivery = try consumer.nextDelivery(timeout: deadline.timeIntervalSinceNow) else { break }
            #expect(delivery.consumerTag == tag)
            #expect(!delivery.redelivered)
            received.append(delivery.text)
            try consumer.ack(deliveryTag: delivery.deliveryTag)
        }
        #expect(received == (0..<1000).map { "message-\($0)" })
        try consumer.cancelConsumer(tag: tag)
        consumer.close()
        #expect(try publisher.declareQueue(name: queue, passive: true).messageCount == 0)
    }

    @Test func nextDeliveryReturnsNilAfterTheTimeout() throws {
        let queue = Broker.unique("empty")
        let connection = try Broker.connect()
        defer { _ = try? connection.deleteQueue(name: queue) }
        try connection.declareQueue(name: queue, durable: false)
        try connection.consume(queue: queue)
        let start = Date()
        #expect(try connection.nextDelivery(timeout: 0.3) == nil)
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.25 && elapsed < 5)
        #expect(try connection.nextDelivery(timeout: 0) == nil)
    }

    @Test func rejectWithRequeueRedelivers() throws {
        let queue = Broker.unique("requeue")
        let connection = try Broker.connect()
        defer { _ = try? connection.deleteQueue(name: queue) }
        try connection.declareQueue(name: queue, durable: false)
        try connection.enableConfirms()
        try connection.publish(exchange: "", routingKey: queue, body: "again".bytes, persistent: false)
        try connection.waitForConfirms()
        try connection.setPrefetch(1)
        try connection.consume(queue: queue)

        let first = try #require(try connection.nextDelivery(timeout: 10))
        #expect(!first.redelivered)
        try connection.reject(deliveryTag: first.deliveryTag, requeue: true)
        let second = try #require(try connection.nextDelivery(timeout: 10))
        #expect(second.redelivered)
        #expect(second.text == "again")
        try connection.ack(deliveryTag: second.deliveryTag)
    }

    @Test func rejectedMessageIsDeadLettered() throws {
        let work = Broker.unique("work")
        let dlx = Broker.unique("dlx")
        let dead = Broker.unique("dead")
        let connection = try Broker.connect()
        defer {
            _ = try? connection.deleteQueue(name: work)
            _ = try? connection.deleteQueue(name: dead)
            try? connection.deleteExchange(name: dlx)
        }
        try connection.declareExchange(name: dlx, type: "fanout", durable: false)
        try connection.declareQueue(name: dead, durable: false)
        try connection.bindQueue(queue: dead, exchange: dlx, routingKey: "")
        try connection.declareQueue(
            name: work, durable: false,
            arguments: ["x-dead-letter-exchange": .string(dlx), "x-message-ttl": 60_000])
        try connection.enableConfirms()
        try connection.publish(
            exchange: "", routingKey: work, body: "doomed".bytes, persistent: false, messageID: "m-1")
        try connection.waitForConfirms()

        let workTag = try connection.consume(queue: work)
        let delivery = try #require(try connection.nextDelivery(timeout: 10))
        #expect(delivery.consumerTag == workTag)
        try connection.reject(deliveryTag: delivery.deliveryTag, requeue: false)

        let deadTag = try connection.consume(queue: dead)
        let deadLettered = try #require(try connection.nextDelivery(timeout: 10))
        #expect(deadLettered.consumerTag == deadTag)
        #expect(deadLettered.text == "doomed")
        #expect(deadLettered.messageID == "m-1")
        #expect(deadLettered.headers["x-death"]?.arrayValue?.count == 1)
        let death = try #require(deadLettered.headers["x-death"]?.arrayValue?.first?.tableValue)
        #expect(death["reason"] == "rejected")
        #expect(death["queue"] == .string(work))
        try connection.ack(deliveryTag: deadLettered.deliveryTag)
    }

    @Test func headersPriorityAndMessageIDRoundTrip() throws {
        let queue = Broker.unique("headers")
        let connection = try Broker.connect()
        defer { _ = try? connection.deleteQueue(name: queue) }
        try connection.declareQueue(name: queue, durable: false, arguments: ["x-max-priority": 10])
        let headers: [String: AMQPFieldValue] = [
            "run": "run-42",
            "attempt": 3,
            "negative": .int(-7),
            "big": .int(Int64.max),
            "final": true,
            "ratio": .double(0.25),
            "raw": .bytes([0, 1, 255]),
            "when": .timestamp(1_700_000_000),
            "list": .array(["a", 1, false]),
            "nested": .table(["inner": .table(["deep": "yes"]), "empty": .array([])]),
            "nothing": .void,
        ]
        try connection.enableConfirms()
        try connection.publish(
            exchange: "", routingKey: queue, body: [], persistent: true, priority: 7, headers: headers,
            messageID: "id-7")
        try connection.waitForConfirms()
        try connection.consume(queue: queue, noAck: true)
        let delivery = try #require(try connection.nextDelivery(timeout: 10))
        #expect(delivery.headers == headers)
        #expect(delivery.priority == 7)
        #expect(delivery.messageID == "id-7")
        #expect(delivery.body.isEmpty)
        #expect(delivery.routingKey == queue)
        #expect(delivery.exchange == "")
    }

    @Test func confirmWaitKeepsDeliveriesOnTheSameConnection() throws {
        let queue = Broker.unique("mixed")
        let connection = try Broker.connect()
        defer { _ = try? connection.deleteQueue(name: queue) }
        try connection.declareQueue(name: queue, durable: false)
        try connection.consume(queue: queue, channel: 1)
        try connection.openChannel(2)
        try connection.enableConfirms(channel: 2)
        for index in 0..<50 {
            try connection.publish(
                exchange: "", routingKey: queue, body: "m\(index)".bytes, persistent: false, channel: 2)
            try connection.waitForConfirms(channel: 2, timeout: 10)
        }
        let deliveries = try Broker.collect(connection, count: 50)
        #expect(deliveries.map(\.text) == (0..<50).map { "m\($0)" })
        #expect(deliveries.allSatisfy { $0.channel == 1 })
        if let last = deliveries.last { try connection.ack(deliveryTag: last.deliveryTag, multiple: true) }
    }
}
