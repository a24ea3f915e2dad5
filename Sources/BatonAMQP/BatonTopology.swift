/// Baton's messaging in one place: exchanges, queues, routing keys, header names and the
/// channel each connection uses for what. `baton migrate` declares the durable topology
/// (`declareAll`); a coordinator declares it again if its broker user may (idempotent) and the task
/// queues before it publishes to them; workers declare nothing durable, they only check
/// (`BatonTopology+Passive`) and consume, so a worker's broker user needs no right to configure
/// shared queues (`BrokerRole`).
///
/// - `baton.tasks` (direct): one durable queue per pool and procedure, `baton.tasks.<pool>:<procedure>`,
///   bound with routing key `<pool>:<procedure>`, so a worker receives only tasks for
///   procedures it serves (`<procedure>` is the routed name, `acme.greet@2` above version 1: only
///   workers serving that version consume it). Priorities 0-9 (`x-max-priority`). As quorum queues (`QueueType`), a
///   queue per `PriorityBand` instead, and the exchange `baton.queue-type.quorum` says so to workers.
/// - `baton.reports` (direct) → `baton.results.<partition>` (durable, one per partition): workers'
///   reports, routed by the partition the task carried, so each coordinator consumes only the
///   partitions it owns. Forwarded dead letters go the same way, with `x-baton-dead-letter`.
/// - `baton.results` (durable queue, bound to `baton.reports` with key `unpartitioned`): reports of
///   tasks from before partitions; any coordinator forwards them to their partition's queue.
/// - `baton.requeue` (fanout, bound on to `baton.tasks`): where a worker publishes a task back
///   (a redelivered one with its count, one handed back on drain), keeping its routing key, so a
///   worker's user needs no right to publish to `baton.tasks`.
/// - `baton.heartbeats` (fanout exchange): worker liveness, to every coordinator's own exclusive
///   queue (each coordinator expires the leases of its own runs' workers), and to the durable queue
///   `baton.heartbeats` (heartbeats expire after a minute) that any one coordinator reads to record
///   the workers in `baton.workers`: written once, and kept while no coordinator runs.
/// - `baton.dead` (fanout) → `baton.dead-letters` (durable): rejected and malformed messages,
///   and tasks past the delivery limit; the coordinator consumes it.
/// - `baton.control` (fanout): cancel signals from the coordinator. Each worker binds a queue of
///   its own to it that is *not* durable: exclusive and auto-deleted with the worker's connection,
///   since a signal only matters to workers alive when it is sent.
public enum BatonTopology {
    public static let tasksExchange = "baton.tasks"
    /// Direct exchange of workers' reports; the routing key is the run's partition.
    public static let reportsExchange = "baton.reports"
    /// Reports of tasks that carry no partition (published by a coordinator from before partitions).
    public static let resultsQueue = "baton.results"
    /// Fanout exchange of worker heartbeats.
    public static let heartbeatsExchange = "baton.heartbeats"
    /// Durable queue bound to the heartbeats exchange: the worker registry, recorded by one coordinator.
    public static let heartbeatsQueue = "baton.heartbeats"
    /// On a dead letter forwarded to its partition's queue: how many deliveries the task had.
    public static let deadLetterHeader = "x-baton-dead-letter"
    /// On a dead letter forwarded to its partition's queue: the queue it died in.
    public static let deadQueueHeader = "x-baton-dead-queue"

    /// The routing key on `reportsExchange` of reports of tasks that carried no partition.
    public static let unpartitionedKey = "unpartitioned"
    /// Fanout exchange bound to `tasksExchange`: workers publish tasks back through it.
    public static let requeueExchange = "baton.requeue"

    /// The queue of reports for runs of `partition`.
    public static func resultsQueue(partition: Int) -> String { "baton.results.\(partition)" }

    /// The routing key of reports for runs of `partition`.
    public static func reportKey(partition: Int) -> String { String(partition) }
    public static let deadExchange = "baton.dead"
    public static let deadLettersQueue = "baton.dead-letters"
    /// Fanout exchange on which the coordinator tells every worker to stop attempts.
    public static let controlExchange = "baton.control"

    /// Header a quorum queue sets on a message it delivers again: how often it came back before.
    public static let deliveryCountHeader = "x-delivery-count"
    /// Header counting how many times a task was delivered without a result.
    public static let deliveriesHeader = "x-baton-deliveries"
    /// When the coordinator published a task, in milliseconds since 1970 (only a coordinator with
    /// `--metrics` sets it): workers measure queued-to-started from it.
    public static let queuedAtHeader = "x-baton-queued-at"
    /// The W3C trace context of the coordinator's span of a task's attempt (only a coordinator with
    /// `--otlp-endpoint` sets it): the worker's span of the attempt is its child. A header, not part of
    /// the task's body, so workers that know nothing of it run the task as before.
    public static let traceparentHeader = "traceparent"
    /// Header RabbitMQ sets on a dead letter: the queue it was rejected from.
    public static let firstDeathQueueHeader = "x-first-death-queue"

    /// Channels of the coordinator's consuming connection.
    public enum CoordinatorChannel {
        public static let results: UInt16 = 1
        public static let heartbeats: UInt16 = 2
        public static let deadLetters: UInt16 = 3
        /// Reports of tasks without a partition (`resultsQueue`), to forward.
        public static let unpartitioned: UInt16 = 4
        /// The shared heartbeats queue, whose heartbeats the coordinator records.
        public static let registry: UInt16 = 5
    }

    /// Channels of a worker's consuming connection.
    public enum WorkerChannel {
        public static let tasks: UInt16 = 1
        public static let control: UInt16 = 2
        /// Confirmed republishing of redelivered tasks with their delivery count.
        public static let republish: UInt16 = 3
        /// Passive checks of the topology, and of a task queue whose consumer the broker cancelled (a
        /// missing queue closes this channel, not the tasks').
        public static let probe: UInt16 = 4
    }

    /// The routing key of tasks for `procedure` in `pool` (pool names cannot contain ':').
    public static func routingKey(pool: String, procedure: String) -> String { "\(pool):\(procedure)" }

    /// The queue that holds tasks for `procedure` in `pool`.
    public static func taskQueue(pool: String, procedure: String) -> String {
        "baton.tasks.\(routingKey(pool: pool, procedure: procedure))"
    }

    /// Declares the shared exchanges and queues, as `queueType` queues.
    public static func declareCommon(on connection: AMQPConnection, channel: UInt16 = 1, queueType: QueueType = .classic) throws {
        try checked(queueType) {
            try connection.declareExchange(name: deadExchange, type: "fanout", durable: true, channel: channel)
            try connection.declareQueue(name: deadLettersQueue, durable: true, arguments: queueType.arguments([:]), channel: channel)
            try connection.bindQueue(queue: deadLettersQueue, exchange: deadExchange, routingKey: "", channel: channel)
            try connection.declareExchange(name: tasksExchange, type: "direct", durable: true, channel: channel)
            try connection.declareQueue(
                name: resultsQueue, durable: true,
                arguments: queueType.arguments(["x-dead-letter-exchange": .string(deadExchange)]), channel: channel)
            try connection.declareExchange(name: reportsExchange, type: "direct", durable: true, channel: channel)
            try connection.bindQueue(queue: resultsQueue, exchange: reportsExchange, routingKey: unpartitionedKey, channel: channel)
            try connection.declareExchange(name: requeueExchange, type: "fanout", durable: true, channel: channel)
            try connection.bindExchange(destination: tasksExchange, source: requeueExchange, routingKey: "", channel: channel)
            try connection.declareExchange(name: heartbeatsExchange, type: "fanout", durable: true, channel: channel)
            try connection.declareQueue(
                name: heartbeatsQueue, durable: true, arguments: queueType.arguments(["x-message-ttl": .int(60_000)]), channel: channel)
            try connection.bindQueue(queue: heartbeatsQueue, exchange: heartbeatsExchange, routingKey: "", channel: channel)
            try connection.declareExchange(name: controlExchange, type: "fanout", durable: true, channel: channel)
        }
    }

    /// Declares the whole durable topology (`baton migrate`): the shared exchanges and queues, the
    /// result queue of each of `partitions` partitions, and the queue-type marker.
    public static func declareAll(partitions: Int, queueType: QueueType, on connection: AMQPConnection, channel: UInt16 = 1) throws {
        try declareCommon(on: connection, channel: channel, queueType: queueType)
        try declarePartitionQueues(partitions, on: connection, channel: channel, queueType: queueType)
        try markQueueType(queueType, on: connection, channel: channel)
    }

    /// Declares (and binds) the result queue of each of `partitions` partitions.
    public static func declarePartitionQueues(
        _ partitions: Int, on connection: AMQPConnection, channel: UInt16 = 1, queueType: QueueType = .classic
    ) throws {
        try checked(queueType) {
            for partition in 0..<partitions {
                try connection.declareQueue(
                    name: resultsQueue(partition: partition), durable: true,
                    arguments: queueType.arguments(["x-dead-letter-exchange": .string(deadExchange)]), channel: channel)
                try connection.bindQueue(
                    queue: resultsQueue(partition: partition), exchange: reportsExchange, routingKey: reportKey(partition: partition),
                    channel: channel)
            }
        }
    }

    /// Declares a coordinator's own heartbeat queue (exclusive, gone with its connection) bound to
    /// the heartbeats exchange; returns its name.
    public static func declareHeartbeatQueue(on connection: AMQPConnection, channel: UInt16) throws -> String {
        let queue = try connection.declareQueue(
            name: "", durable: false, exclusive: true, autoDelete: true, arguments: ["x-message-ttl": .int(60_000)], channel: channel
        ).name
        try connection.bindQueue(queue: queue, exchange: heartbeatsExchange, routingKey: "", channel: channel)
        return queue
    }

    /// Declares (and binds) the task queue of `procedure` in `pool` (of classic queues; the lowest
    /// band's of quorum queues); returns its name.
    @discardableResult
    public static func declareTaskQueue(
        pool: String, procedure: String, on connection: AMQPConnection,
        channel: UInt16 = 1, queueType: QueueType = .classic
    ) throws -> String {
        try declareTaskQueues(pool: pool, procedure: procedure, on: connection, channel: channel, queueType: queueType)[0]
    }

    /// Declares (and binds) the task queues of `procedure` in `pool`, one per priority band of
    /// `queueType`, lowest band first; returns their names.
    @discardableResult
    public static func declareTaskQueues(
        pool: String, procedure: String, on connection: AMQPConnection,
        channel: UInt16 = 1, queueType: QueueType = .classic
    ) throws -> [String] {
        try checked(queueType) {
            try queueType.bands.map { band in
                let queue = band.queue(pool: pool, procedure: procedure)
                try connection.declareQueue(name: queue, durable: true, arguments: queueType.taskQueueArguments, channel: channel)
                try connection.bindQueue(
                    queue: queue, exchange: tasksExchange, routingKey: band.routingKey(pool: pool, procedure: procedure), channel: channel)
                return queue
            }
        }
    }

    /// The task queue that `routingKey` (any band's) leads to.
    public static func taskQueue(routingKey: String) -> String {
        guard routingKey.hasPrefix(":") else { return "baton.tasks.\(routingKey)" }
        let parts = routingKey.dropFirst().split(separator: ":", maxSplits: 1)
        return parts.count == 2 ? "baton.tasks:\(parts[0]).\(parts[1])" : "baton.tasks.\(routingKey)"
    }

    /// The routing key of a task of `priority` for `procedure` in `pool`: its band's.
    public static func routingKey(pool: String, procedure: String, priority: Int, queueType: QueueType) -> String {
        queueType == .classic
            ? routingKey(pool: pool, procedure: procedure) : queueType.band(of: priority).routingKey(pool: pool, procedure: procedure)
    }

    /// How every classic task queue is declared: dead letters go to `deadExchange`, priorities 0 to 9.
    public static let taskQueueArguments: [String: AMQPFieldValue] = QueueType.classic.taskQueueArguments

    /// Messages waiting in the task queues of `procedure` in `pool`, every band (declared if
    /// missing, as the workers do).
    public static func taskQueueDepth(
        pool: String, procedure: String, on connection: AMQPConnection, channel: UInt16 = 1, queueType: QueueType = .classic
    ) throws -> UInt32 {
        try checked(queueType) {
            try queueType.bands.reduce(0) { total, band in
                total
                    + (try connection.declareQueue(
                        name: band.queue(pool: pool, procedure: procedure), durable: true, arguments: queueType.taskQueueArguments,
                        channel: channel
                    ).messageCount)
            }
        }
    }

    /// Declares a worker's private control queue (server-named `amq.gen-…`, exclusive) bound to the
    /// control exchange, which must exist; returns its name.
    public static func declareControlQueue(on connection: AMQPConnection, channel: UInt16) throws -> String {
        let queue = try connection.declareQueue(name: "", durable: false, exclusive: true, autoDelete: true, channel: channel).name
        try connection.bindQueue(queue: queue, exchange: controlExchange, routingKey: "", channel: channel)
        return queue
    }

    /// Declares Baton's queues and empties them, with the task queues of `procedures` in `pools`:
    /// a clean slate for tests and benchmarks.
    public static func purge(pools: [String], procedures: [String], partitions: Int = 64, on connection: AMQPConnection) throws {
        try declareCommon(on: connection)
        try declarePartitionQueues(partitions, on: connection)
        var queues = [resultsQueue, heartbeatsQueue, deadLettersQueue] + (0..<partitions).map { resultsQueue(partition: $0) }
        for pool in pools {
            for procedure in procedures { queues.append(try declareTaskQueue(pool: pool, procedure: procedure, on: connection)) }
        }
        for queue in queues { _ = try connection.purgeQueue(name: queue) }
    }
}
