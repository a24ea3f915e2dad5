import CRabbitMQ

/// One message delivered to a consumer. Acknowledge it on the same connection
/// and channel with its ``deliveryTag``.
public struct AMQPDelivery: Sendable, Equatable {
    public let channel: UInt16
    public let deliveryTag: UInt64
    public let redelivered: Bool
    public let exchange: String
    public let routingKey: String
    public let consumerTag: String
    public let body: [UInt8]
    public let headers: [String: AMQPFieldValue]
    public let messageID: String?
    public let priority: UInt8?

    public init(
        channel: UInt16, deliveryTag: UInt64, redelivered: Bool, exchange: String, routingKey: String,
        consumerTag: String, body: [UInt8], headers: [String: AMQPFieldValue] = [:],
        messageID: String? = nil, priority: UInt8? = nil
    ) {
        self.channel = channel
        self.deliveryTag = deliveryTag
        self.redelivered = redelivered
        self.exchange = exchange
        self.routingKey = routingKey
        self.consumerTag = consumerTag
        self.body = body
        self.headers = headers
        self.messageID = messageID
        self.priority = priority
    }
}

extension AMQPDelivery {
    /// Copies a delivery's method fields and message out of librabbitmq's buffers.
    init(channel: UInt16, method info: DeliverFields, message: amqp_message_t) {
        let properties = message.properties
        let flags = properties._flags
        self.init(
            channel: channel,
            deliveryTag: info.deliveryTag,
            redelivered: info.redelivered,
            exchange: info.exchange,
            routingKey: info.routingKey,
            consumerTag: info.consumerTag,
            body: FieldTable.array(message.body),
            headers: flags & UInt32(AMQP_BASIC_HEADERS_FLAG) != 0 ? FieldTable.decode(properties.headers) : [:],
            messageID: flags & UInt32(AMQP_BASIC_MESSAGE_ID_FLAG) != 0 ? FieldTable.string(properties.message_id) : nil,
            priority: flags & UInt32(AMQP_BASIC_PRIORITY_FLAG) != 0 ? properties.priority : nil
        )
    }
}

/// The basic.deliver method fields, copied out of the connection's buffers.
struct DeliverFields {
    var deliveryTag: UInt64
    var redelivered: Bool
    var exchange: String
    var routingKey: String
    var consumerTag: String
}
