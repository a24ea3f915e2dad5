/// A task delivery to acknowledge, tagged with the consumer connection it came on
/// (a tag is meaningless on any other connection).
struct DeliveryAck: Sendable, Equatable {
    let generation: Int
    let deliveryTag: UInt64
}
