/// One channel of a `MemoryBroker` connection: its deliveries not yet acked (by tag) and its
/// publishes (sequence numbers from 1, each in flight until it arrives, then confirmed).
final class MemoryChannel {
    struct Unacked {
        let tag: UInt64
        let queue: String
        /// Its place in its queue, where it goes back to.
        let order: Int
        let message: MemoryMessage
    }

    struct InFlight {
        let sequence: UInt64
        let message: MemoryMessage
    }

    let number: UInt16
    /// The most unacked deliveries at once (0: no limit), shared by every consumer of the channel.
    var prefetch = 0
    /// Delivered and not yet acked, in tag order.
    var unacked: [Unacked] = []
    var nextTag: UInt64 = 1
    /// Publishes so far; the last one's sequence number.
    var published: UInt64 = 0
    /// Published, not yet arrived at the broker's queues.
    var inFlight: [InFlight] = []
    /// Every publish through this number is confirmed.
    var confirmedThrough: UInt64 = 0
    /// Published and not yet confirmed, oldest first (for `MemoryBroker.onConfirm`).
    var awaitingConfirm: [MemoryMessage] = []

    init(number: UInt16) { self.number = number }
}
