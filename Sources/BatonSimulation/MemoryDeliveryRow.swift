import BatonStore

/// A row of `baton.webhook_deliveries` in a `MemoryStore` (the outbox), with its attempts
/// (`baton.webhook_attempts`) in `row.history`, its partition (the run's) and the event's body.
public struct MemoryDeliveryRow: Sendable, Equatable {
    public internal(set) var row: DeliveryRow
    public let partition: Int
    public let body: String
}
