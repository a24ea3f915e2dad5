/// The queue type on the broker: the marker workers read, and the one line for a broker whose
/// queues are of another type than the database says.
extension BatonTopology {
    /// Records on the broker that its queues are of `queueType`, for workers (which hold no database
    /// credentials) to read with `queueType(on:channel:)`.
    public static func markQueueType(_ queueType: QueueType, on connection: AMQPConnection, channel: UInt16 = 1) throws {
        for other in QueueType.allCases where other != queueType {
            try connection.deleteExchange(name: other.marker, channel: channel)
        }
        try connection.declareExchange(name: queueType.marker, type: "fanout", durable: true, channel: channel)
    }

    /// The queue type the broker was marked with (classic when unmarked: no coordinator or
    /// `baton migrate --queue-type` has said otherwise). Reopens `channel`, which a missing marker
    /// closes: call it before setting the channel up (confirms, prefetch).
    public static func queueType(on connection: AMQPConnection, channel: UInt16 = 1) throws -> QueueType {
        do {
            try connection.declareExchange(name: QueueType.quorum.marker, type: "fanout", durable: true, passive: true, channel: channel)
            return .quorum
        } catch let error as AMQPError where error.code == .notFound {
            try connection.openChannel(channel)
            return .classic
        }
    }

    /// Runs `declare`, turning the broker's refusal of a queue declared as another type than it
    /// has into one line that says what disagrees and what to do.
    static func checked<T>(_ queueType: QueueType, _ declare: () throws -> T) throws -> T {
        do { return try declare() } catch let error as AMQPError where error.code == .preconditionFailed && error.detail.contains("x-queue-type") {
            let queue = error.detail.range(of: "for queue '").map { String(error.detail[$0.upperBound...].prefix { $0 != "'" }) } ?? "?"
            throw AMQPError(
                .invalidArgument,
                "queue '\(queue)' on the broker is not a \(queueType.rawValue) queue, which the database's `baton migrate --queue-type` "
                    + "asks for: use the vhost and database that belong together, or a new vhost",
                operation: error.operation, channel: error.channel, replyCode: error.replyCode)
        }
    }
}
