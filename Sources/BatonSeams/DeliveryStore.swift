/// The store seam of webhook delivery (`BatonWebhooks.WebhookDelivery`): claiming due deliveries of
/// the partitions a coordinator holds, recording each attempt, pruning ended ones. `Store` is the
/// production type (the outbox the `baton.events` trigger fills); the cluster simulator's
/// `MemoryStore` is its twin, held to it by contract tests.
public protocol DeliveryStore: AnyObject {
    /// Claims (leases for `lease` seconds) at most `limit` due pending deliveries of the partitions
    /// `coordinator` holds, oldest due first; with the database's time.
    func claimDeliveries(coordinator: String, limit: Int, lease: Double) throws -> (now: Double, deliveries: [ClaimedDelivery])
    /// Records attempt `attempt` of delivery `id` and the step after it; false when nothing changed
    /// (the attempt was recorded already, the delivery ended or is gone).
    @discardableResult
    func recordDeliveryAttempt(
        _ id: Int64, attempt: Int, status: Int?, error: String?, durationMs: Int, coordinator: String, step: DeliveryStep
    ) throws -> Bool
    /// Deletes deliveries that ended more than `age` seconds after they were made; the number deleted.
    @discardableResult
    func pruneDeliveries(olderThan age: Double) throws -> Int
}
