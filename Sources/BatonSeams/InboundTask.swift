import Foundation

/// A task delivered to a worker, with what the worker may know of it; how it was routed (and its
/// headers) stays with the broker seam, which needs it to publish the task again.
public struct InboundTask: Sendable, Equatable {
    public let body: [UInt8]
    /// The broker delivered it before (to a worker that never acked it).
    public let redelivered: Bool
    /// How many deliveries without a result the task has had, by the count it carries (nil: none).
    public let deliveries: Int?
    /// When the coordinator published it, if it said.
    public let queuedAt: Date?
    /// `deliveries` is the queue's own count (a quorum queue's `x-delivery-count`): a redelivery
    /// needs no republishing to be counted.
    public let countedByBroker: Bool
    public let receipt: BrokerReceipt
    /// The W3C trace context of the coordinator's span of this attempt, if it sent one.
    public let traceparent: String?
    /// The routing key it came with.
    package let routingKey: String
    /// Its priority, if it had one.
    package let priority: UInt8?
    /// The seam's own: where it came from and what it carried (nil: as the twin publishes tasks).
    package let origin: (any TaskOrigin)?

    /// For the seam's implementations (the in-memory twin included).
    public init(
        body: [UInt8], redelivered: Bool, deliveries: Int?, queuedAt: Date?, countedByBroker: Bool = false, receipt: BrokerReceipt,
        routingKey: String, priority: UInt8?
    ) {
        self.init(
            body: body, redelivered: redelivered, deliveries: deliveries, queuedAt: queuedAt, countedByBroker: countedByBroker,
            receipt: receipt, routingKey: routingKey, priority: priority, traceparent: nil, origin: nil)
    }

    /// For an adapter that keeps how the task came (to publish it again as it came).
    package init(
        body: [UInt8], redelivered: Bool, deliveries: Int?, queuedAt: Date?, countedByBroker: Bool = false, receipt: BrokerReceipt,
        routingKey: String, priority: UInt8?, traceparent: String?, origin: (any TaskOrigin)?
    ) {
        self.body = body
        self.redelivered = redelivered
        self.deliveries = deliveries
        self.queuedAt = queuedAt
        self.countedByBroker = countedByBroker
        self.receipt = receipt
        self.routingKey = routingKey
        self.priority = priority
        self.traceparent = traceparent
        self.origin = origin
    }

    /// The routing key it came with (for the in-memory twin).
    public var route: String { routingKey }
    /// Its priority (for the in-memory twin).
    public var taskPriority: UInt8? { priority }

    public static func == (a: InboundTask, b: InboundTask) -> Bool {
        a.body == b.body && a.redelivered == b.redelivered && a.deliveries == b.deliveries && a.queuedAt == b.queuedAt
            && a.countedByBroker == b.countedByBroker && a.receipt == b.receipt && a.traceparent == b.traceparent
            && a.routingKey == b.routingKey && a.priority == b.priority && TaskOriginEquality.same(a.origin, b.origin)
    }
}
