/// What kind of durable queues Baton declares (`baton migrate --queue-type`, recorded in the
/// database so every process agrees).
///
/// - `classic`: one queue per pool and procedure with message priorities 0-9 (`x-max-priority`);
///   a worker counts deliveries in a header of its own and republishes a redelivered task.
/// - `quorum`: replicated queues for a RabbitMQ cluster (a node may die and the queue goes on).
///   They have no message priorities, so each pool and procedure has a queue per `PriorityBand`,
///   and a worker starts the highest-priority task it holds first; the queue counts deliveries
///   itself (`x-delivery-count`) and dead-letters a task returned more than `deliveryLimit` times.
public enum QueueType: String, Sendable, Equatable, CaseIterable {
    case classic
    case quorum

    /// The quorum queues' own delivery limit: a backstop above any worker's `--delivery-limit`,
    /// which decides first from the count the queue keeps.
    public static let deliveryLimit = 20

    /// The problem with `text` as a queue type, nil if it is one.
    public static func problem(_ text: String) -> String? {
        QueueType(rawValue: text) == nil ? "unknown queue type '\(text)' (use classic or quorum)" : nil
    }

    /// The bands whose queues hold this type's tasks: one for classic (the queue orders by priority).
    public var bands: [PriorityBand] {
        switch self {
        case .classic: [PriorityBand.all]
        case .quorum: PriorityBand.quorum
        }
    }

    /// The band of a task of `priority`.
    public func band(of priority: Int) -> PriorityBand {
        switch self {
        case .classic: PriorityBand.all
        case .quorum: PriorityBand.quorum.last { $0.lowest <= priority } ?? PriorityBand.all
        }
    }

    /// The prefetch of each of a worker's `queues` consumers, for a worker whose prefetch is
    /// `prefetch`; nil for classic queues, whose prefetch is the channel's, shared by every queue.
    /// Quorum queues refuse a channel-wide prefetch: each consumer gets a share of it, at least two,
    /// so that while one task of a band runs the next waits in the worker, ahead of lower bands.
    /// (`--prefetch 1` keeps one: a task that kills its worker counts a delivery against every task it held.)
    public func consumerPrefetch(_ prefetch: Int, queues: Int) -> Int? {
        switch self {
        case .classic: nil
        case .quorum: prefetch <= 1 ? 1 : max(2, (prefetch + queues - 1) / max(1, queues))
        }
    }
}
