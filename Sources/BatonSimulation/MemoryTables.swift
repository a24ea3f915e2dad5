import Baton
import BatonStore
import Foundation

/// The tables of a `MemoryStore`, as one value: a transaction works on a copy and stores it back
/// only when it succeeds, so a failing one changes nothing.
struct MemoryTables {
    var runs: [String: MemoryRunRow] = [:]
    /// By run, then key.
    var nodes: [String: [String: MemoryNodeRow]] = [:]
    /// By run, in the order written.
    var events: [String: [MemoryEventRow]] = [:]
    var cache: [MemoryCacheRow] = []
    var holds: [Int64: AdmissionTable.Entry] = [:]
    /// `baton.rate_tokens`: per rate claim name, when each live token expires.
    var rateTokens: [String: [Date]] = [:]
    /// Holds granted whose node was not told yet (`told` false).
    var untold: Set<Int64> = []
    /// In id order.
    var requests: [MemoryRequestRow] = []
    var workers: [String: MemoryWorkerRow] = [:]
    /// `baton.coordinators`, by id.
    var coordinators: [String: MemoryCoordinatorRow] = [:]
    /// `baton.partitions`, by partition (`RunPartition.standard` of them unless the simulator says).
    /// `baton.schedules`, by name.
    var schedules: [String: ScheduleRow] = [:]
    /// Each schedule's first due time as its first step set it (a new schedule starts from that step's
    /// time: earlier ones were never wanted, `ScheduleDecision`), for the simulator's invariant.
    var scheduleFirstDue: [String: Double] = [:]
    /// `baton.idempotency_keys`: key -> run id.
    var idempotencyKeys: [String: String] = [:]
    /// `baton.webhooks`, by id.
    var webhooks: [Int64: MemoryWebhookRow] = [:]
    /// `baton.webhook_deliveries` (the outbox the events trigger fills), by id, with their attempts.
    var deliveries: [Int64: MemoryDeliveryRow] = [:]
    /// `baton.pauses`: what is paused, with when it was (seconds on the store's clock).
    var pauses: [PauseTarget: Double] = [:]
    var partitions: [MemoryPartitionRow] = (0..<RunPartition.standard).map { MemoryPartitionRow(partition: $0) }
}
