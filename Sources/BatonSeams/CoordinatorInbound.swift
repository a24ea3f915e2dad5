/// One message the coordinator receives.
public enum CoordinatorInbound: Sendable, Equatable {
    /// A worker's report (a result, a start, progress, a log line) from the queue of a partition the
    /// coordinator consumes; acked, cumulatively, once its effect is committed and the tasks it led
    /// to are confirmed.
    case report(body: [UInt8], receipt: BrokerReceipt)
    /// A worker's heartbeat: from the coordinator's own queue (`shared` nil, consumed without acks),
    /// for its leases; or from the queue all coordinators share, to record the worker, acked
    /// (`ack(through:)`) once recorded, so a consumer connection reopened in between loses none.
    case heartbeat(body: [UInt8], shared: BrokerReceipt?)
    /// A dead letter forwarded to the queue of a partition the coordinator consumes: a task that went
    /// past the delivery limit (or any rejected message), with the number of deliveries it had and
    /// the queue it died in. Acked with the reports.
    case deadLetter(body: [UInt8], deliveries: Int, queue: String?, receipt: BrokerReceipt)
    /// A message of a queue all coordinators share, which belongs to a partition's owner: a dead
    /// letter (`deadLetter` says how many deliveries and which queue), or a report of a task from
    /// before partitions. Forwarded (`forward`), then acked on its own (`ack`).
    case unrouted(body: [UInt8], deadLetter: DeadLetterOrigin?, receipt: BrokerReceipt)
}
