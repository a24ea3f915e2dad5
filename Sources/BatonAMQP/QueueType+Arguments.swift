import BatonSeams

/// What a queue type means on RabbitMQ: its queues' arguments, and the exchange that marks it.
extension QueueType {
    /// The arguments every durable queue of this type is declared with, besides its own.
    func arguments(_ own: [String: AMQPFieldValue]) -> [String: AMQPFieldValue] {
        switch self {
        case .classic: own
        case .quorum: own.merging(["x-queue-type": .string("quorum")]) { mine, _ in mine }
        }
    }

    /// The arguments of a task queue of this type.
    var taskQueueArguments: [String: AMQPFieldValue] {
        switch self {
        case .classic: ["x-dead-letter-exchange": .string(BatonTopology.deadExchange), "x-max-priority": .int(9)]
        case .quorum:
            arguments([
                "x-dead-letter-exchange": .string(BatonTopology.deadExchange), "x-delivery-limit": .int(Int64(Self.deliveryLimit)),
            ])
        }
    }

    /// The exchange whose existence tells workers the broker's queues are of this type (declared by
    /// the coordinator and by `baton migrate --queue-type`; workers hold no database credentials).
    var marker: String { "baton.queue-type.\(rawValue)" }
}
