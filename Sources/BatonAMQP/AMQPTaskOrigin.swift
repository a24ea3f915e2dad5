import BatonSeams

/// How a task came to a worker over RabbitMQ (its exchange and headers), kept in its `InboundTask`
/// to publish it again as it came.
struct AMQPTaskOrigin: TaskOrigin, Equatable {
    let exchange: String
    let headers: [String: AMQPFieldValue]

    /// `task`'s origin; a task the adapter did not deliver came from the tasks exchange without headers.
    static func of(_ task: InboundTask) -> AMQPTaskOrigin {
        task.origin as? AMQPTaskOrigin ?? AMQPTaskOrigin(exchange: BatonTopology.tasksExchange, headers: [:])
    }
}
