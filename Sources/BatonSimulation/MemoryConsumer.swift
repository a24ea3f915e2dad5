/// A subscription of one channel of a `MemoryBroker` connection to one queue.
final class MemoryConsumer {
    let connection: MemoryConnection
    let channel: MemoryChannel
    let queue: String
    /// Consumed without acks: a delivery is done with once sent (heartbeats, cancel signals).
    let noAck: Bool
    /// Its own prefetch (quorum queues', which refuse a channel-wide one); nil: the channel's, shared.
    let prefetch: Int?

    init(connection: MemoryConnection, channel: MemoryChannel, queue: String, noAck: Bool, prefetch: Int? = nil) {
        self.connection = connection
        self.channel = channel
        self.queue = queue
        self.noAck = noAck
        self.prefetch = prefetch
    }

    /// Whether the broker may send it one more message now.
    var canTake: Bool {
        guard connection.alive, !noAck else { return connection.alive }
        if let prefetch { return channel.unacked.lazy.filter { $0.queue == self.queue }.count < prefetch }
        return channel.prefetch == 0 || channel.unacked.count < channel.prefetch
    }
}
