/// One message a worker's consuming connection receives.
public enum WorkerInbound: Sendable, Equatable {
    /// A task of a procedure the worker serves.
    case task(InboundTask)
    /// A cancel signal from the coordinator (consumed without acks).
    case control(body: [UInt8])
    /// The broker cancelled the consumer of task queue `queue` (`basic.cancel`: the queue was
    /// deleted). The connection and its other consumers go on; `resume(queue:)` consumes it again
    /// once it exists.
    case cancelled(queue: String)
}
