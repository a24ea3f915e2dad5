import BatonAMQP

/// The in-memory twin of RabbitMQ with Baton's topology (`BatonTopology`), for the cluster
/// simulator: every queue and message, deterministic, driven by the simulator alone. It hands out
/// connection handles implementing the broker seams (`coordinatorConnection(name:)`,
/// `workerTasks(name:)`, `workerReports(name:)`), and lets the simulator decide when things happen
/// and inject faults.
///
/// What it models, as RabbitMQ does:
/// - Publishes are *in flight* until the simulator calls `deliverPublishes` (they reach their queues)
///   or `deliverConfirms` (they reach them and are confirmed); `waitForConfirms` on a handle does
///   both for its channel at once (the process waits). Sequence numbers count from 1 per connection.
/// - Delivery is pushed: after every step the broker sends ready messages to consumers with room
///   under their channel's prefetch, round-robin among the consumers of a queue, into the
///   connection's inbox; `receive` takes from the inbox and never waits (the simulator owns time).
/// - Priorities (task queues): higher first, first-in first-out within one. A requeued message goes
///   back to its place, flagged redelivered. Rejected without requeue, a task or report goes to
///   `baton.dead-letters` with the queue it died in and the delivery count it carried.
/// - Queue types (`QueueType`, marked by `baton migrate --queue-type` and every coordinator's
///   connect, read by workers as `BatonTopology.queueType(on:)` does): classic task queues as
///   above; quorum ones as `BatonTopology` declares them, a queue per `PriorityBand` with no
///   priorities (first-in first-out), each consumer with a prefetch of its own
///   (`QueueType.consumerPrefetch`), every return of a message to its queue (rejected with requeue,
///   its connection lost, given out again) counted in the `x-delivery-count` its later deliveries
///   carry, and a message returned more than `QueueType.deliveryLimit` times dead-lettered instead.
///   A quorum message is one message: once acked or dead-lettered, its other copies (`duplicate`)
///   are gone, and a copy that comes back while another waits in the queue merges with it. The twin
///   counts in task queues only (no other queue's count is read).
/// - A connection lost (`drop`) or closed returns its unacked deliveries to their queues, flagged
///   redelivered, and deletes its exclusive control queue; its handle's calls then throw
///   `AMQPError` `.connectionLost` until it connects again.
/// - An ack of a delivery tag the channel does not hold is a protocol error (RabbitMQ closes the
///   channel with 406): it is recorded in `protocolErrors`, and the twin closes the connection.
///
/// Not modelled: the heartbeats' one-minute expiry, flow control, queue length limits.
///
/// Used from one thread at a time (the simulator's); nothing in it reads the clock or draws a
/// random number, and nothing observable depends on the order of a dictionary or set.
public final class MemoryBroker: @unchecked Sendable {
    // Safe: used from one thread at a time (see above).
    /// Every queue, in the order it was declared.
    var queues: [MemoryQueue] = []
    var queuesByName: [String: MemoryQueue] = [:]
    /// The task exchange's bindings: routing key to queue name.
    var taskBindings: [String: String] = [:]
    /// Coordinators' exclusive queues bound to the heartbeats exchange.
    var heartbeatQueues: Set<String> = []
    /// Live connections, in the order they were opened.
    var connections: [MemoryConnection] = []
    var nextConnectionID = 1
    var nextMessageID = 1
    var nextOrder = 1
    /// Where the next dispatch starts among the queues, so that one queue cannot starve another
    /// that shares a consumer's prefetch.
    var dispatchStart = 0
    /// Injected publish failures for connections not open yet: a fault aimed at a name, for the next
    /// connection that answers to it.
    var pendingPublishFailures: [(name: String, after: Int, keepUnconfirmed: Bool)] = []

    /// Every ack so far, in order (see `clearAcks`).
    public internal(set) var acks: [MemoryAck] = []
    /// Called with each ack as it happens (after it is recorded in `acks`).
    public var onAck: ((MemoryAck) -> Void)?
    /// Called with each message as its publisher is told it is confirmed.
    public var onConfirm: ((MemoryMessage) -> Void)?
    /// Protocol violations by the clients (such as an ack of an unknown delivery tag), one line each.
    public internal(set) var protocolErrors: [String] = []
    /// While true, connecting fails (`.connectionFailed`): the broker is down or unreachable.
    public var refusesConnections = false
    /// Prefixes of handle names cut off from the broker (`cut`): their connections are refused.
    public internal(set) var cutOff: Set<String> = []
    /// Why the broker blocks publishers (a memory or disk alarm), or nil: while set, publishes stay in
    /// flight (they neither arrive nor are confirmed), and a wait for confirms times out.
    public var blocksPublishers: String? {
        didSet { if oldValue == nil && blocksPublishers != nil { blocks += 1 } }
    }
    /// Called with the `timeout` of a coordinator's wait for confirms that timed out (the broker blocks
    /// publishers): a test lets that much time pass on its clock, as the real wait would.
    public var onTimedOutWait: ((Double) -> Void)?
    /// How many blocks of publishers began so far.
    public internal(set) var blocks = 0
    /// The type of the task queues, as the marker exchange says (`BatonTopology.markQueueType`).
    public internal(set) var queueType: QueueType
    /// How often each message (by id, every copy of it) came back to a quorum task queue.
    var returns: [Int: Int] = [:]
    /// Whether the returns happening now are an injected fault's doing (a crash, a lost connection, a
    /// cut, a delivery given out again): the simulator sets it around its faults, never around a
    /// worker killed by the task it ran nor around what a client closes of its own accord.
    public var faultsReturning = false
    /// How many of each quorum task message's returns (`returns`) an injected fault caused.
    var faultReturns: [Int: Int] = [:]
    /// Tasks dead-lettered past the delivery limit with every return an injected fault's: the faults
    /// alone reached the limit, so their nodes failing as poison is the documented end, not a defect.
    public internal(set) var deadLetteredByFaults: [(runID: String, key: String)] = []
    /// Messages of quorum task queues acked or dead-lettered: a quorum queue holds one message, so
    /// a copy given out again (`duplicate`) is gone with it, and a stale copy's return is dropped.
    var settled: Set<Int> = []
    /// Called with each delivery to a consumer that acks (as it is sent).
    public var onDeliver: ((MemoryDelivery) -> Void)?
    /// Quorum behaviour broken on purpose, for the tests of the simulator's invariants.
    var quorumDefects: Set<MemoryQuorumDefect> = []

    /// A broker whose queues `baton migrate --queue-type` made of `queueType`.
    public init(queueType: QueueType = .classic) { self.queueType = queueType }

    /// Marks the broker's queues as of `queueType`, as a coordinator does on every connect.
    func mark(_ queueType: QueueType) { self.queueType = queueType }

    /// A coordinator's handle (it opens two connections, `<name>-publish` and `<name>-consume`).
    public func coordinatorConnection(name: String = "coordinator") -> MemoryCoordinatorBroker {
        MemoryCoordinatorBroker(broker: self, name: name)
    }

    /// A worker's consuming handle: tasks, cancel signals, republishing.
    public func workerTasks(name: String) -> MemoryWorkerTaskBroker { MemoryWorkerTaskBroker(broker: self, name: name) }

    /// A worker's publishing handle: reports and heartbeats.
    public func workerReports(name: String, legacy: Bool = false) -> MemoryWorkerReportBroker {
        MemoryWorkerReportBroker(broker: self, name: name, legacy: legacy)
    }

    // MARK: Observation

    /// Every queue's name, in the order declared.
    public var queueNames: [String] { queues.map(\.name) }

    /// The messages ready in `queue`, in the order they will be delivered (empty if it does not exist).
    public func messages(in queue: String) -> [MemoryMessage] { queuesByName[queue]?.ready.map(\.message) ?? [] }

    /// The names of the live connections, in the order they were opened.
    public var connectionNames: [String] { connections.map(\.name) }

    /// The deliveries held unacked by the live connections that answer to `name` (a connection's
    /// own name or its handle's), by connection, channel and tag.
    public func unacked(of name: String) -> [MemoryDelivery] {
        connections.filter { $0.answers(to: name) }.flatMap(deliveries(of:))
    }

    /// Every delivery held unacked by any live connection, by connection, channel and tag.
    public var allUnacked: [MemoryDelivery] { connections.flatMap(deliveries(of:)) }

    private func deliveries(of connection: MemoryConnection) -> [MemoryDelivery] {
        connection.channels.flatMap { channel in
            channel.unacked.map {
                MemoryDelivery(connection: connection.name, channel: channel.number, tag: $0.tag, queue: $0.queue, message: $0.message)
            }
        }
    }

    /// Publishes of the live connections answering to `name` not yet confirmed.
    public func unconfirmed(of name: String) -> Int {
        connections.filter { $0.answers(to: name) }.reduce(0) { sum, connection in
            sum + connection.channels.reduce(0) { $0 + Int($1.published - $1.confirmedThrough) }
        }
    }

    /// Forgets the acks recorded so far.
    public func clearAcks() { acks = [] }
}
