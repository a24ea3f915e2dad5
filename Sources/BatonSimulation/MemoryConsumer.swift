/// A subscription of one channel of a `MemoryBroker` connection to one queue.
final class MemoryConsumer {
    let connection: MemoryConnection
    let channel: MemoryChannel
    let queue: String
    /// Consumed without acks: a delivery is done with once sent (heartbeats, cancel signals).
    let noAck: Bool

    init(connection: MemoryConnection, channel: MemoryChannel, queue: String, noAck: Bool) {
        self.connection = connection
        self.channel = channel
        self.queue = queue
        self.noAck = noAck
    }

    /// Whether the broker may send it one more message now.
    var canTake: Bool {
        connection.alive && (noAck || channel.prefetch == 0 || channel.unacked.count < channel.prefetch)
    }
}
