import Foundation

/// What a worker process says about itself every few seconds, and once more when it stops.
/// On the wire: the members `WorkerHeartbeat.members` lists (below).
public struct WorkerHeartbeat: Codable, Sendable, Equatable {
    public internal(set) var id: String
    public internal(set) var host: String
    public internal(set) var pid: Int
    public internal(set) var pools: [String]
    public internal(set) var procedures: [String]
    public internal(set) var slots: Int
    public internal(set) var startedAt: Date
    /// Slots busy right now.
    public internal(set) var busy: Int
    /// Seconds until the next heartbeat: a worker not heard from for a few intervals is gone.
    public internal(set) var interval: Double
    /// True in the last heartbeat of a worker that is shutting down.
    public internal(set) var stopping: Bool
    /// The input and output schema of each procedure served, or nil in a heartbeat that does not carry them.
    public internal(set) var schemas: [String: ProcedureSchema]?
    /// The attempts the worker holds (running, or taken and waiting for a slot), at most
    /// `holdingLimit`; nil from a worker that does not say (one from before it).
    public internal(set) var holding: [HeldAttempt]?

    /// Most attempts one heartbeat lists as held (a worker's prefetch is usually far fewer).
    public static let holdingLimit = 2_000

    /// A worker sends its schemas in its first heartbeat and then in every this-many-th: they are a
    /// few kilobytes that rarely change, so every heartbeat would write them to the database for nothing;
    /// sending them again now and then repairs a first heartbeat that was lost (about a minute, at 5 s).
    public static let schemasEvery = 12

    public init(
        id: String, host: String, pid: Int, pools: [String], procedures: [String], slots: Int, startedAt: Date,
        busy: Int = 0, interval: Double = 5, stopping: Bool = false, schemas: [String: ProcedureSchema]? = nil,
        holding: [HeldAttempt]? = nil
    ) {
        self.id = id
        self.host = host
        self.pid = pid
        self.pools = pools
        self.procedures = procedures
        self.slots = slots
        self.startedAt = startedAt
        self.busy = busy
        self.interval = interval
        self.stopping = stopping
        self.schemas = schemas
        self.holding = holding.map { Array($0.prefix(Self.holdingLimit)) }
    }

    /// The same heartbeat with `schemas` in place of its own.
    public func carrying(schemas: [String: ProcedureSchema]?) -> WorkerHeartbeat {
        WorkerHeartbeat(
            id: id, host: host, pid: pid, pools: pools, procedures: procedures, slots: slots, startedAt: startedAt, busy: busy,
            interval: interval, stopping: stopping, schemas: schemas, holding: holding)
    }

}

extension WorkerHeartbeat: WireMessage {
    static let what = "heartbeat"

    static func blank<C: WireCoder>(_ coder: inout C) throws -> WorkerHeartbeat {
        WorkerHeartbeat(id: "", host: "", pid: 0, pools: [], procedures: [], slots: 0, startedAt: Date(timeIntervalSince1970: 0))
    }

    /// Every member, in wire order (times in seconds since 1970).
    static func members<C: WireCoder>(_ c: inout C, _ m: inout WorkerHeartbeat) throws {
        try c.required("busy", &m.busy)
        // The attempts it holds (`HeldAttempt`); readers that predate it ignore it, and one this build
        // cannot read is dropped, not the heartbeat.
        try c.tolerated("holding", &m.holding)
        try c.required("host", &m.host)
        try c.required("id", &m.id)
        try c.required("interval", &m.interval)
        try c.required("pid", &m.pid)
        try c.required("pools", &m.pools)
        try c.required("procedures", &m.procedures)
        // Each procedure's `ProcedureSchema`, in a worker's first heartbeat and every `schemasEvery`th
        // (the coordinator keeps the last it stored). Readers of version 1 that predate it ignore it;
        // one this build cannot read is dropped, not the heartbeat.
        try c.tolerated("schemas", &m.schemas)
        try c.required("slots", &m.slots)
        try c.required("started_at", &m.startedAt)
        try c.defaulted("stopping", &m.stopping, standard: false)
        try c.version()
    }

    public init(from decoder: Decoder) throws { self = try Self.decoded(from: decoder) }
    public func encode(to encoder: Encoder) throws { try encodeMembers(to: encoder) }

    public func encoded() -> [UInt8] { written(capacity: 256) }

    public init(decoding bytes: [UInt8]) throws { self = try Self.decoded(from: bytes) }
}
