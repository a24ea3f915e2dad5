import BatonAMQP

/// A task delivery to acknowledge, tagged with the consumer connection (generation) it came on:
/// a receipt means nothing on any other connection.
struct DeliveryAck: Sendable, Equatable {
    let generation: Int
    let receipt: BrokerReceipt
}
