import Foundation

/// The coordinator's side of the messaging seam: what it publishes (tasks, cancel signals, forwarded
/// messages) and what it receives (reports of the partitions it consumes, heartbeats, dead letters),
/// with confirms and acks. Queue names, channels, delivery tags and headers stay behind it.
/// `AMQPCoordinatorBroker` is the production type over librabbitmq; the cluster simulator has an
/// in-memory twin.
///
/// Publish sequence numbers count from 1 after each `connect()`; `confirmed()` reports the highest
/// number through which the broker confirmed every publish.
public protocol CoordinatorBroker: AnyObject {
    /// Connects, declares the topology (a result queue for each of `partitions` partitions) and starts
    /// consuming heartbeats and the shared queues (at most `prefetch` unacked reports per partition
    /// consumer later). No partition's reports until `consume(partitions:)`. A consuming connection
    /// that answers nothing for about `silence` seconds (its process paused) is dropped by the broker,
    /// so what it held goes back to the queues about when its partitions' leases run out.
    /// Durable queues are declared as `queueType` (the database's `baton migrate --queue-type`); a
    /// broker whose queues are of another type is refused with one line (a configuration error).
    func connect(prefetch: Int, partitions: Int, silence: Double, queueType: QueueType) throws
    /// Consumes the result queues of exactly `partitions` from now on. Every unacked delivery goes
    /// back to its queue (for the partition's owner, whoever that is now); receipts from before ack nothing.
    func consume(partitions: Set<Int>) throws
    /// Closes everything; unacked deliveries go back to their queues. Safe to call more than once.
    func close()
    /// Publishes a task to the queue of its pool and procedure: persistent, confirmed, and
    /// `mandatory` (a task no queue is bound for comes back: `takeReturned`). `queuedAt`
    /// stamps when it was published (for workers' queued-to-started metric); `traceparent` goes in its
    /// `BatonTopology.traceparentHeader`. Returns its sequence number.
    func publishTask(pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?, traceparent: String?) throws -> UInt64
    /// Publishes a cancel signal to every worker; returns its sequence number.
    func publishCancel(body: [UInt8]) throws -> UInt64
    /// Publishes a report, or with `deadLetter` a dead letter, to the result queue of `partition`, for
    /// its owner (persistent, confirmed); returns its sequence number.
    func forward(_ body: [UInt8], toPartition partition: Int, deadLetter: DeadLetterOrigin?) throws -> UInt64
    /// The sequence number through which every publish is confirmed, without waiting.
    func confirmed() throws -> UInt64
    /// Waits up to `timeout` seconds until every publish so far is confirmed (a nack throws; so does the
    /// timeout, `AMQPError.Kind.timeout`, after which waiting again is fine: the publishes stay outstanding).
    func waitForConfirms(timeout: Double) throws
    /// Services an idle connection (broker heartbeats are answered only inside a call).
    func keepAlive() throws
    /// The next message, waiting up to `timeout` seconds (also woken early by confirms when `confirmsDue`).
    func receive(timeout: Double, confirmsDue: Bool) throws -> CoordinatorInbound?
    /// Acks every delivery of `receipt`'s channel up to and including it: the reports and forwarded
    /// dead letters of a batch, or the shared queue's heartbeats it recorded.
    func ack(through receipt: BrokerReceipt) throws
    /// Acks one message of a shared queue (`CoordinatorInbound.unrouted`).
    func ack(_ receipt: BrokerReceipt) throws
    /// Rejects a message that cannot be read, to the dead-letter queue.
    func reject(_ receipt: BrokerReceipt) throws
    /// The bodies of the tasks the broker returned unroutable (`basic.return`: no queue was bound for
    /// their routing key, as when their queue was deleted) since the last call, oldest first. They
    /// arrive with the confirms (`confirmed`, `waitForConfirms`); a returned publish is confirmed too.
    func takeReturned() -> [[UInt8]]
    /// Tasks waiting in the queue of `procedure` in `pool` (declared again if it is missing).
    func taskQueueDepth(pool: String, procedure: String) throws -> Int
    /// Whether the broker blocks publishers now (`connection.blocked`: a memory or disk alarm), and how
    /// many blocks began so far. The broker says so only to a connection that publishes: this publishes
    /// a small probe now and then, so an idle coordinator learns of an alarm too.
    func flow() throws -> BrokerFlow
}

extension CoordinatorBroker {
    /// `connect(prefetch:partitions:silence:queueType:)` with classic queues.
    public func connect(prefetch: Int, partitions: Int, silence: Double) throws {
        try connect(prefetch: prefetch, partitions: partitions, silence: silence, queueType: .classic)
    }
}

extension CoordinatorBroker {
    /// `waitForConfirms(timeout:)` with the 30 s every wait had before the coordinator waited in slices.
    public func waitForConfirms() throws { try waitForConfirms(timeout: 30) }

    /// `publishTask` without a trace context.
    public func publishTask(pool: String, procedure: String, body: [UInt8], priority: UInt8, queuedAt: Date?) throws -> UInt64 {
        try publishTask(pool: pool, procedure: procedure, body: body, priority: priority, queuedAt: queuedAt, traceparent: nil)
    }
}
