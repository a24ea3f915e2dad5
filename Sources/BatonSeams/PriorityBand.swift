/// A range of task priorities that share a queue. Classic queues order by priority themselves (one
/// band, 0-9); quorum queues have none, so a task goes to the queue of its band and a worker takes
/// the highest-priority task it holds first. The lowest band's queue keeps the classic name.
public struct PriorityBand: Sendable, Hashable, Comparable {
    /// The lowest priority in the band.
    public let lowest: Int

    /// A band from `lowest` up to the next band's lowest.
    package init(lowest: Int) { self.lowest = lowest }

    /// Every priority, in one queue.
    public static let all = PriorityBand(lowest: 0)
    /// Quorum queues' bands: 0-2 (the default priority 0 among them), 3-6 and 7-9.
    public static let quorum = [PriorityBand(lowest: 0), PriorityBand(lowest: 3), PriorityBand(lowest: 7)]

    public static func < (a: PriorityBand, b: PriorityBand) -> Bool { a.lowest < b.lowest }
}
