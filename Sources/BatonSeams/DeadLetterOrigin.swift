/// Where a dead letter came from: how many deliveries the task had, and the queue it died in.
public struct DeadLetterOrigin: Sendable, Equatable {
    public let deliveries: Int
    public let queue: String?

    public init(deliveries: Int, queue: String?) {
        self.deliveries = deliveries
        self.queue = queue
    }
}
