/// A report waiting to be published, and the task delivery to ack once the broker confirmed it.
struct OutgoingReport: Sendable {
    let body: [UInt8]
    let ack: DeliveryAck?
}
