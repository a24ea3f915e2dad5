/// A report waiting to be published, and the task delivery to ack once the broker confirmed it.
struct OutgoingReport: Sendable {
    let body: [UInt8]
    let ack: DeliveryAck?
    /// The partition of the task's run (`TaskDispatch.partition`): routes it to the run's coordinator.
    var partition: Int? = nil
}
