/// One connection to the `MemoryBroker` (a handle such as `MemoryWorkerTaskBroker` opens a new one
/// on every `connect`): its channels, and the deliveries sent to it that it has not received yet.
final class MemoryConnection {
    struct Inbound {
        let channel: UInt16
        let tag: UInt64
        let message: MemoryMessage
    }

    /// Numbers the connections of the broker from 1, in the order they were opened.
    let id: Int
    /// The connection's own name (as RabbitMQ shows it), such as `coordinator-publish`.
    let name: String
    /// The name of the handle that opened it (the coordinator's two connections share one).
    let owner: String
    var alive = true
    /// The network between it and its client is cut (`MemoryBroker.cut`): the broker still holds it (and
    /// delivers to its consumers) until it notices, but nothing the client does reaches the broker.
    var severed = false
    /// Whether its client can use it: alive and not cut off.
    var usable: Bool { alive && !severed }
    /// Ordered by number.
    private(set) var channels: [MemoryChannel] = []
    /// Sent by the broker, not yet taken by `receive`, in the order sent.
    var inbox: [Inbound] = []
    /// A consumer the broker cancelled (its queue was deleted), not yet told to the client.
    struct Cancelled: Equatable {
        let channel: UInt16
        let queue: String
    }

    /// Consumers cancelled by the broker, in the order it cancelled them, not yet taken by the client.
    var cancelled: [Cancelled] = []
    /// Mandatory messages no queue took (`basic.return`), not yet taken by the client.
    var returned: [MemoryMessage] = []
    /// Publishes still allowed before an injected publish failure (nil: none injected).
    var publishesBeforeFailure: Int?
    /// Whether the injected failure leaves the publishes in flight arriving.
    var failureKeepsUnconfirmed = false

    init(id: Int, name: String, owner: String) {
        self.id = id
        self.name = name
        self.owner = owner
    }

    /// Whether a fault aimed at `name` hits this connection (its own name or its handle's).
    func answers(to name: String) -> Bool { self.name == name || owner == name }

    /// The channel numbered `number`, opened on first use.
    func channel(_ number: UInt16) -> MemoryChannel {
        if let channel = channels.first(where: { $0.number == number }) { return channel }
        let channel = MemoryChannel(number: number)
        let index = channels.firstIndex { $0.number > number } ?? channels.count
        channels.insert(channel, at: index)
        return channel
    }
}
