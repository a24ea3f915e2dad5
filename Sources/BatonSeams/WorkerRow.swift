import Baton
import Foundation

/// A worker as `baton workers` shows it.
public struct WorkerRow: Sendable, Codable {
    public let id: String
    public let host: String
    public let pid: Int
    public let pools: [String]
    public let procedures: [String]
    public let slots: Int
    public let startedAt: String
    public let lastSeenAt: String
    public let secondsSinceSeen: Double
    /// The input and output schema of each procedure, from the worker's heartbeats (not in `baton workers --json`).
    public var schemas: [String: ProcedureSchema] = [:]

    /// A worker as a store read it (the simulator's store twin makes them too).
    public init(
        id: String, host: String, pid: Int, pools: [String], procedures: [String], slots: Int, startedAt: String, lastSeenAt: String,
        secondsSinceSeen: Double, schemas: [String: ProcedureSchema] = [:]
    ) {
        self.id = id
        self.host = host
        self.pid = pid
        self.pools = pools
        self.procedures = procedures
        self.slots = slots
        self.startedAt = startedAt
        self.lastSeenAt = lastSeenAt
        self.secondsSinceSeen = secondsSinceSeen
        self.schemas = schemas
    }

    enum CodingKeys: String, CodingKey {
        case id, host, pid, pools, procedures, slots
        case startedAt = "started_at", lastSeenAt = "last_seen_at", secondsSinceSeen = "seconds_since_seen"
    }
}
