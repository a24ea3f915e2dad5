/// The tasks a worker published again (a redelivery with its count, or a copy to the dead-letter
/// exchange) whose originals it acks only once the broker confirmed their copies, by the copies'
/// publish sequence numbers. A confirm may come late (a memory or disk alarm blocks publishers for as
/// long as it lasts): waiting for it on later turns, rather than closing the connection, keeps every
/// other task the worker holds from going back to its queue with one more delivery counted.
public struct CopiesAwaitingConfirm: Sendable {
    private var waiting: [(sequence: UInt64, original: BrokerReceipt)] = []

    public init() {}

    /// How many originals wait for their copies' confirms.
    public var count: Int { waiting.count }
    public var isEmpty: Bool { waiting.isEmpty }

    /// `original`'s copy went out as publish `sequence` of the confirming channel.
    public mutating func add(_ original: BrokerReceipt, copy sequence: UInt64) {
        waiting.append((sequence, original))
    }

    /// The broker confirmed every publish through `through`: the originals whose copies that covers,
    /// in the order they were added, to ack now (they leave the list).
    public mutating func confirmed(through: UInt64) -> [BrokerReceipt] {
        guard waiting.contains(where: { $0.sequence <= through }) else { return [] }
        let done = waiting.filter { $0.sequence <= through }.map(\.original)
        waiting.removeAll { $0.sequence <= through }
        return done
    }

    /// The connection is gone: its originals went back to their queues with it.
    public mutating func removeAll() { waiting = [] }
}
