/// One message a worker's consuming connection receives.
public enum WorkerInbound: Sendable, Equatable {
    /// A task of a procedure the worker serves.
    case task(InboundTask)
    /// A cancel signal from the coordinator (consumed without acks).
    case control(body: [UInt8])
}
