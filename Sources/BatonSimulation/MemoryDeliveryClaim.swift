/// One claim of a delivery in a `MemoryStore` (`claimDeliveries`), kept for the simulator's checks:
/// who claimed it, when, until when, and how many attempts it had then.
public struct MemoryDeliveryClaim: Sendable, Equatable {
    public let deliveryID: Int64
    public let coordinator: String
    /// Seconds since 1970, on the database's clock.
    public let at: Double
    public let until: Double
    public let attempts: Int
}
