/// A worker's consuming side of the messaging seam: tasks of the procedures it serves (with a
/// prefetch shared by all of them) and cancel signals, acks and rejects, and the confirmed
/// re-publishing of tasks (with their delivery count, or handed back as they came).
/// `AMQPWorkerTaskBroker` is the production type; the simulator has an in-memory twin.
/// Used by one thread at a time.
public protocol WorkerTaskBroker: AnyObject {
    /// Connects and (if `consume`) starts taking tasks from the queues of `procedures` in `pools`
    /// that exist, at most `prefetch` unacked at once, and from the others once they exist (a worker
    /// declares none: `baton migrate` and the coordinator do); also starts hearing cancel signals.
    func connect(pools: [String], procedures: [String], prefetch: Int, consume: Bool) throws
    /// Consumes task queue `queue` again after the broker cancelled its consumer
    /// (`WorkerInbound.cancelled`), if it exists (without declaring it); false if it does not yet.
    func resume(queue: String) throws -> Bool
    /// Stops taking tasks (those delivered stay delivered).
    func stopConsuming()
    /// Closes the connection: unacked tasks go back to their queues. Safe to call more than once.
    func close()
    /// The next message, waiting up to `timeout` seconds (ended early by `wakeup`).
    func receive(timeout: Double, wakeup: (any BrokerWakeup)?) throws -> WorkerInbound?
    /// Acks a task: it is done with (its result is confirmed, or it is dropped).
    func ack(_ receipt: BrokerReceipt) throws
    /// Rejects a task: back to its queue (`requeue`), or to the dead-letter queue.
    func reject(_ receipt: BrokerReceipt, requeue: Bool) throws
    /// Publishes `task` again carrying `deliveries` as its count, and acks this copy once the broker
    /// confirmed the new one: at once if it did, else at a later `settleCopies` (while the broker
    /// blocks publishers, for as long as the block lasts; the connection stays open meanwhile).
    func republish(_ task: InboundTask, deliveries: Int) throws
    /// Sends a task past the delivery limit to the dead-letter queue, saying after how many
    /// deliveries (a copy, whose original is acked as `republish`'s is).
    func deadLetter(_ task: InboundTask, deliveries: Int) throws
    /// Acks the tasks whose copies (`republish`, `deadLetter`) the broker confirmed since, without
    /// waiting for the others. Throws if the broker refused a copy (the connection is then closed,
    /// and its originals go back to their queues).
    func settleCopies() throws
    /// Publishes tasks that never ran back to their queues as they came (confirmed), then acks the copies.
    func handBack(_ tasks: [InboundTask]) throws
    /// True when `receive` cannot be woken by a `wakeup` (TLS): callers then poll more often.
    var needsPolling: Bool { get }
    /// Task queues to consume that do not exist yet (checked again every second while receiving).
    var missingQueues: [String] { get }
}

extension WorkerTaskBroker {
    public var missingQueues: [String] { [] }
}
