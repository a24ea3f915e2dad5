import Baton
import Foundation

/// A row of `baton.workers` in a `MemoryStore`: the last heartbeat of a worker and when it was stored.
public struct MemoryWorkerRow: Sendable {
    public let id: String
    public let host: String
    public let pid: Int
    public let pools: [String]
    public let procedures: [String]
    public let slots: Int
    public let startedAt: Date
    /// The store's clock when the heartbeat was written (`now()` in PostgreSQL).
    public let lastSeenAt: Date
    /// Seconds between the worker's heartbeats.
    public let interval: Double
    /// The last schemas a heartbeat carried (most carry none).
    public let schemas: [String: ProcedureSchema]?
}
