import BatonAMQP
import Foundation

/// The raw broker hop Baton's hops compare with: through the same client library and broker,
/// one connection publishes a persistent message with publisher confirms to a durable queue and
/// waits for the confirm, another consumes it with manual acks and acks it; then the next one.
/// Each hop is timed from the publish to the ack being sent.
enum RawHop {
    /// The sorted hop times in seconds of `count` ping-pongs (after a few unmeasured ones) on a
    /// temporary durable queue in the vhost of `amqpURL`, which is deleted afterwards.
    static func measure(amqpURL: String, count: Int) throws -> [Double] {
        let publisher = try AMQPConnection(url: amqpURL, connectionName: "baton-benchmark-raw-publish")
        let consumer = try AMQPConnection(url: amqpURL, connectionName: "baton-benchmark-raw-consume")
        defer {
            publisher.close()
            consumer.close()
        }
        let queue = "baton.benchmark.raw-hop.\(UUID().uuidString.lowercased())"
        // Durable and not exclusive, like Baton's queues, so a persistent message is written before it is confirmed.
        try consumer.declareQueue(name: queue, durable: true)
        defer { _ = try? consumer.deleteQueue(name: queue) }
        try publisher.enableConfirms()
        try consumer.setPrefetch(1)
        try consumer.consume(queue: queue)
        let body = Array(#"{"hop":41,"previous":40,"note":"a short string"}"#.utf8)
        let clock = ContinuousClock()
        var hops: [Double] = []
        hops.reserveCapacity(count)
        for i in 0..<(count + 20) {
            let began = clock.now
            try publisher.publish(exchange: "", routingKey: queue, body: body, persistent: true)
            try publisher.waitForConfirms(timeout: 10)
            guard let delivery = try consumer.nextDelivery(timeout: 10) else {
                throw BenchmarkError("raw hop: message \(i) of the raw hop did not arrive within 10 s")
            }
            try consumer.ack(deliveryTag: delivery.deliveryTag)
            let elapsed = clock.now - began
            if i >= 20 { hops.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) }
        }
        return hops.sorted()
    }
}
