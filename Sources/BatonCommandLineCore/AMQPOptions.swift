import ArgumentParser
import Foundation

/// Where RabbitMQ is, for commands that need nothing else: workers hold no database credentials.
public struct AMQPOptions: ParsableArguments {
    @Option(name: .customLong("amqp-url"), help: "AMQP URI (default: $BATON_AMQP_URL or amqp://guest:guest@127.0.0.1:5672/%2f)")
    public var amqpURLFlag: String?

    public init() {}

    public var amqpURL: String {
        amqpURLFlag ?? ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/%2f"
    }
}
