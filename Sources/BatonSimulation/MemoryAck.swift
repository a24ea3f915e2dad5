/// One message acked at the `MemoryBroker`, in the order acks happened: for the simulator's checks
/// (such as "no report is acked before its effect is committed").
public struct MemoryAck: Sendable, Equatable {
    /// The name of the connection that acked it.
    public let connection: String
    /// The queue it was taken from.
    public let queue: String
    public let tag: UInt64
    public let message: MemoryMessage
}
