import Foundation

/// A message held by the `MemoryBroker`, as a queue or a consumer sees it: what was published with
/// it, and what the broker added (the redelivered flag, the queue it was dead-lettered from).
public struct MemoryMessage: Sendable, Equatable {
    /// Numbers the publishes of the whole broker from 1; kept when the message is requeued, duplicated
    /// or dead-lettered (a republished task is a new message with a new number).
    public let id: Int
    /// The name of the connection that published it.
    public let publisher: String
    public let exchange: String
    public let routingKey: String
    public let body: [UInt8]
    /// Persistent messages survive a broker restart; transient ones (heartbeats, cancels) do not.
    public let persistent: Bool
    public let priority: UInt8?
    /// The delivery count the task carries (`BatonTopology.deliveriesHeader`), if any.
    public let deliveries: Int?
    /// When the coordinator said it published the task (`BatonTopology.queuedAtHeader`), if it did.
    public let queuedAt: Date?
    /// The broker gave it out before, to a consumer that never acked it.
    public internal(set) var redelivered: Bool
    /// The queue it was first dead-lettered from (`BatonTopology.firstDeathQueueHeader`).
    public internal(set) var deathQueue: String?
    /// A quorum queue's `x-delivery-count` on this delivery: how often the message came back to its
    /// queue before (nil on a first delivery, and from classic queues). On a message the queue
    /// dead-lettered past its delivery limit, the count of its last delivery.
    public internal(set) var deliveryCount: Int? = nil
    /// Published `mandatory`: if no queue takes it, it goes back to its publisher (`basic.return`).
    public internal(set) var mandatory = false
}
