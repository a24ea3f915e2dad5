/// A message the `MemoryBroker` gave to a consumer that has not acked it yet (whether or not the
/// consumer has taken it with `receive` yet): which connection, channel and delivery tag hold it.
public struct MemoryDelivery: Sendable, Equatable {
    /// The name of the connection holding it.
    public let connection: String
    public let channel: UInt16
    public let tag: UInt64
    /// The queue it came from (and returns to when it is rejected with requeue or its connection is lost).
    public let queue: String
    public let message: MemoryMessage
}
