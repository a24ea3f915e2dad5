import BatonAMQP

/// The connection generation and delivery tag a `BrokerReceipt` stands for. `BrokerReceipt` keeps
/// them internal to BatonAMQP (it only offers a public initializer), so the twin reads them back by
/// reflection; replace this with plain property reads if BatonAMQP makes them public.
struct MemoryReceipt: Equatable {
    let generation: Int
    let tag: UInt64

    init(_ receipt: BrokerReceipt) {
        var generation: Int?
        var tag: UInt64?
        for child in Mirror(reflecting: receipt).children {
            switch child.label {
            case "generation": generation = child.value as? Int
            case "tag": tag = child.value as? UInt64
            default: break
            }
        }
        guard let generation, let tag else { preconditionFailure("BrokerReceipt no longer holds generation and tag") }
        self.generation = generation
        self.tag = tag
    }
}
