/// One message the coordinator receives.
public enum CoordinatorInbound: Sendable, Equatable {
    /// A worker's report (a result, a start, progress, a log line); acked, cumulatively, once its
    /// effect is committed and the tasks it led to are confirmed.
    case report(body: [UInt8], receipt: BrokerReceipt)
    /// A worker's heartbeat (not acked: heartbeats are consumed without acks).
    case heartbeat(body: [UInt8])
    /// A dead letter: a task that went past the delivery limit (or any rejected message), with the
    /// number of deliveries it had and the queue it died in.
    case deadLetter(body: [UInt8], deliveries: Int, queue: String?, receipt: BrokerReceipt)
}
