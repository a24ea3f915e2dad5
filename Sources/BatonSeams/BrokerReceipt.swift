/// A delivery's handle for acking or rejecting it, opaque to the callers of a broker seam: which
/// connection (generation) and delivery tag it stands for is the seam's business. A receipt from a
/// connection that has since been replaced acks nothing (the broker gives that message out again).
public struct BrokerReceipt: Sendable, Hashable {
    /// Package-wide, for the seam's implementations (the simulator's twin is one); outside the
    /// package a receipt is opaque.
    package let generation: Int
    package let tag: UInt64
    /// The channel it came on.
    package let channel: UInt16

    /// For the seam's implementations (the in-memory twin included).
    public init(generation: Int, tag: UInt64, channel: UInt16 = 1) {
        self.generation = generation
        self.tag = tag
        self.channel = channel
    }
}
