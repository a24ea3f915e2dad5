/// Checks that declare nothing (`passive`), for processes whose broker user may not configure the
/// shared topology: workers, and coordinators restricted to `BrokerRole.coordinator`.
extension BatonTopology {
    /// Whether exchange `name` exists. A missing one closes `channel`, which this reopens.
    public static func exchangeExists(_ name: String, on connection: AMQPConnection, channel: UInt16 = 1) throws -> Bool {
        do {
            try connection.declareExchange(name: name, passive: true, channel: channel)
            return true
        } catch let error as AMQPError where error.code == .notFound {
            try connection.openChannel(channel)
            return false
        }
    }

    /// Whether queue `name` exists. A missing one closes `channel`, which this reopens.
    public static func queueExists(_ name: String, on connection: AMQPConnection, channel: UInt16 = 1) throws -> Bool {
        do {
            try connection.declareQueue(name: name, passive: true, channel: channel)
            return true
        } catch let error as AMQPError where error.code == .notFound {
            try connection.openChannel(channel)
            return false
        }
    }

    /// Throws, naming the first that is missing, unless every one of `exchanges` and `queues` exists.
    /// The error is a 404 (reconnect with back-off): `baton migrate` or a coordinator may declare it soon.
    public static func requireDeclared(
        exchanges: [String], queues: [String] = [], on connection: AMQPConnection, channel: UInt16 = 1
    ) throws {
        for exchange in exchanges where !(try exchangeExists(exchange, on: connection, channel: channel)) {
            throw missing("exchange '\(exchange)'", channel: channel)
        }
        for queue in queues where !(try queueExists(queue, on: connection, channel: channel)) {
            throw missing("queue '\(queue)'", channel: channel)
        }
    }

    /// Checks that the durable topology `declareAll` declares is there: the coordinator's way when
    /// its user may not declare it. Also that the broker's queue-type marker agrees.
    public static func requireAll(partitions: Int, queueType: QueueType, on connection: AMQPConnection, channel: UInt16 = 1) throws {
        try requireDeclared(
            exchanges: [deadExchange, tasksExchange, reportsExchange, heartbeatsExchange, controlExchange, requeueExchange],
            queues: [deadLettersQueue, resultsQueue, heartbeatsQueue] + (0..<partitions).map { resultsQueue(partition: $0) },
            on: connection, channel: channel)
        let marked = try self.queueType(on: connection, channel: channel)
        guard marked == queueType else {
            throw AMQPError(
                .invalidArgument,
                "the broker is marked for \(marked.rawValue) queues but the database asks for \(queueType.rawValue): "
                    + "run `baton migrate` against this broker, or use the vhost and database that belong together",
                operation: "exchange.declare '\(queueType.marker)' (passive)", channel: channel)
        }
    }

    /// The error for something of Baton's topology that is not on the broker.
    static func missing(_ what: String, channel: UInt16) -> AMQPError {
        AMQPError(
            .channelClosed,
            "\(what) does not exist on the broker: `baton migrate` declares Baton's topology (and a coordinator its task "
                + "queues before it publishes to them); waiting for it",
            operation: "check of Baton's topology", channel: channel, replyCode: AMQPReplyCode.notFound.rawValue)
    }
}
