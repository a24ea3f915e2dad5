import BatonAMQP

/// The connection generation and delivery tag a `BrokerReceipt` stands for (visible to the twin
/// because it is in the same package; opaque to everyone else).
struct MemoryReceipt: Equatable {
    let generation: Int
    let tag: UInt64
    let channel: UInt16

    init(_ receipt: BrokerReceipt) {
        generation = receipt.generation
        tag = receipt.tag
        channel = receipt.channel
    }
}
