/// A mandatory message the broker sent back (`basic.return`): no queue was bound for its routing key.
public struct AMQPReturn: Sendable, Equatable {
    /// The channel it was published on.
    public let channel: UInt16
    public let exchange: String
    public let routingKey: String
    public let body: [UInt8]

    public init(channel: UInt16, exchange: String, routingKey: String, body: [UInt8]) {
        self.channel = channel
        self.exchange = exchange
        self.routingKey = routingKey
        self.body = body
    }
}
