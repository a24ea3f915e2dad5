/// Baton's exchanges and queues. Everything is durable; declaring is idempotent,
/// so coordinator and workers each declare what they use on every (re)connect.
///
/// - `baton.tasks` (direct): routing key = pool; queue `baton.tasks.<pool>` per pool.
/// - `baton.results` queue (default exchange): workers' reports to the coordinator.
/// - `baton.heartbeats` queue: worker liveness; old heartbeats expire.
/// - `baton.dead` (fanout) → `baton.dead-letters`: rejected and malformed messages.
public enum BatonTopology {
    public static let tasksExchange = "baton.tasks"
    public static let resultsQueue = "baton.results"
    public static let heartbeatsQueue = "baton.heartbeats"
    public static let deadExchange = "baton.dead"
    public static let deadLettersQueue = "baton.dead-letters"

    /// The queue that holds tasks for `pool`.
    public static func taskQueue(pool: String) -> String { "baton.tasks.\(pool)" }

    /// Declares the shared exchanges and queues.
    public static func declareCommon(on connection: AMQPConnection, channel: UInt16 = 1) throws {
        try connection.declareExchange(name: deadExchange, type: "fanout", durable: true, channel: channel)
        try connection.declareQueue(name: deadLettersQueue, durable: true, channel: channel)
        try connection.bindQueue(queue: deadLettersQueue, exchange: deadExchange, routingKey: "", channel: channel)
        try connection.declareExchange(name: tasksExchange, type: "direct", durable: true, channel: channel)
        try connection.declareQueue(name: resultsQueue, durable: true,
                                    arguments: ["x-dead-letter-exchange": .string(deadExchange)], channel: channel)
        try connection.declareQueue(name: heartbeatsQueue, durable: true,
                                    arguments: ["x-message-ttl": .int(60_000)], channel: channel)
        try connection.declareExchange(name: controlExchange, type: "fanout", durable: true, channel: channel)
    }

    /// Declares (and binds) the task queue of `pool`.
    public static func declarePool(_ pool: String, on connection: AMQPConnection, channel: UInt16 = 1) throws {
        let queue = taskQueue(pool: pool)
        try connection.declareQueue(name: queue, durable: true,
                                    arguments: ["x-dead-letter-exchange": .string(deadExchange), "x-max-priority": .int(9)],
                                    channel: channel)
        try connection.bindQueue(queue: queue, exchange: tasksExchange, routingKey: pool, channel: channel)
    }
}

extension BatonTopology {
    /// Fanout exchange on which the coordinator tells every worker to stop attempts.
    public static let controlExchange = "baton.control"

    /// Declares the control exchange and a private, self-deleting queue bound to it; returns the queue's name.
    public static func declareControlQueue(on connection: AMQPConnection, channel: UInt16) throws -> String {
        try connection.declareExchange(name: controlExchange, type: "fanout", durable: true, channel: channel)
        let queue = try connection.declareQueue(name: "", durable: false, exclusive: true, autoDelete: true, channel: channel).name
        try connection.bindQueue(queue: queue, exchange: controlExchange, routingKey: "", channel: channel)
        return queue
    }
}
