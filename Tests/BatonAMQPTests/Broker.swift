import BatonAMQP
import Foundation

/// The RabbitMQ the integration tests talk to (BATON_AMQP_URL).
enum Broker {
    static var url: String {
        ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
    }

    static func connect(_ name: String = "baton-amqp-tests") throws -> AMQPConnection {
        try AMQPConnection(url: url, connectionName: name)
    }

    /// A name no other test (or run) uses.
    static func unique(_ prefix: String) -> String {
        "baton-test-\(prefix)-\(UUID().uuidString)"
    }

    /// Reads deliveries until `count` arrived or `seconds` passed.
    static func collect(_ connection: AMQPConnection, count: Int, within seconds: Double = 10) throws -> [AMQPDelivery] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var deliveries: [AMQPDelivery] = []
        while deliveries.count < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let delivery = try connection.nextDelivery(timeout: left) else { break }
            deliveries.append(delivery)
        }
        return deliveries
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

extension AMQPDelivery {
    var text: String { String(decoding: body, as: UTF8.self) }
}
