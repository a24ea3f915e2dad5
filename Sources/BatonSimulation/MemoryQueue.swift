/// One queue of the `MemoryBroker`: its ready messages in the order they will be delivered (higher
/// priority first where the queue has priorities (classic task queues; quorum ones have none), then
/// by when they were first enqueued, so a requeued message goes back to where it was), and its
/// consumers in the order they subscribed.
final class MemoryQueue {
    struct Entry {
        var message: MemoryMessage
        /// Its place in the queue: the broker's enqueue counter when it first entered this queue.
        let order: Int
    }

    let name: String
    /// Declared with `x-max-priority` 9 (task queues).
    let prioritized: Bool
    /// Declared with `x-dead-letter-exchange` (task queues, results): a message rejected without
    /// requeue goes to the dead-letter exchange; from other queues it is discarded.
    let deadLettered: Bool
    /// Kept across a broker restart (every queue but the workers' control queues).
    let durable: Bool
    /// A quorum task queue's `x-delivery-limit`: it counts each message's returns (`x-delivery-count`)
    /// and dead-letters one returned more often than this. Nil for the others.
    let deliveryLimit: Int?
    /// The connection that declared it exclusive (a worker's control queue), deleted with it.
    let owner: Int?
    private(set) var ready: [Entry] = []
    var consumers: [MemoryConsumer] = []
    /// Where the round-robin among consumers resumes.
    var nextConsumer = 0

    init(name: String, prioritized: Bool, deadLettered: Bool, durable: Bool, owner: Int?, deliveryLimit: Int? = nil) {
        self.name = name
        self.prioritized = prioritized
        self.deadLettered = deadLettered
        self.durable = durable
        self.deliveryLimit = deliveryLimit
        self.owner = owner
    }

    /// The priority the queue orders by (0 to 9; none where the queue has no priorities).
    func rank(_ message: MemoryMessage) -> UInt8 { prioritized ? min(message.priority ?? 0, 9) : 0 }

    /// Puts `message` in its place: after every message of a higher priority or of the same one enqueued earlier.
    func insert(_ message: MemoryMessage, order: Int) {
        let rank = rank(message)
        let entry = Entry(message: message, order: order)
        if let last = ready.last, self.rank(last.message) >= rank, last.order < order {
            ready.append(entry)
            return
        }
        let index =
            ready.firstIndex { other in
                let otherRank = self.rank(other.message)
                return otherRank < rank || (otherRank == rank && other.order > order)
            } ?? ready.count
        ready.insert(entry, at: index)
    }

    func removeFirst() -> Entry { ready.removeFirst() }

    func removeAll() { ready.removeAll() }

    /// Whether a copy of message `id` is ready here.
    func holds(_ id: Int) -> Bool { ready.contains { $0.message.id == id } }

    /// Drops the ready copies of message `id`.
    func remove(_ id: Int) { ready.removeAll { $0.message.id == id } }

    /// Drops the messages that do not survive a broker restart.
    func removeTransient() { ready.removeAll { !$0.message.persistent } }
}
