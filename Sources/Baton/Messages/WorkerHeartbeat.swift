import Foundation

/// What a worker process says about itself every few seconds, and once more when it stops.
/// On the wire: `{"v": 1, "id", "host", "pid", "pools", "procedures", "slots", "started_at",
/// "busy", "interval", "stopping"?, "schemas"?}` (times in seconds since 1970). `schemas` maps each
/// procedure to its `ProcedureSchema`; workers send it in their first heartbeat and every
/// `WorkerHeartbeat.schemasEvery`th, not in each (the coordinator keeps the last it stored).
/// Readers of version 1 that predate it ignore it; one this build cannot read is dropped, not the heartbeat.
public struct WorkerHeartbeat: Codable, Sendable, Equatable {
    public let id: String
    public let host: String
    public let pid: Int
    public let pools: [String]
    public let procedures: [String]
    public let slots: Int
    public let startedAt: Date
    /// Slots busy right now.
    public let busy: Int
    /// Seconds until the next heartbeat: a worker not heard from for a few intervals is gone.
    public let interval: Double
    /// True in the last heartbeat of a worker that is shutting down.
    public let stopping: Bool
    /// The input and output schema of each procedure served, or nil in a heartbeat that does not carry them.
    public let schemas: [String: ProcedureSchema]?

    /// A worker sends its schemas in its first heartbeat and then in every this-many-th: they are a
    /// few kilobytes that rarely change, so every heartbeat would write them to the database for nothing;
    /// sending them again now and then repairs a first heartbeat that was lost (about a minute, at 5 s).
    public static let schemasEvery = 12

    public init(
        id: String, host: String, pid: Int, pools: [String], procedures: [String], slots: Int, startedAt: Date,
        busy: Int = 0, interval: Double = 5, stopping: Bool = false, schemas: [String: ProcedureSchema]? = nil
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
    }

    enum CodingKeys: String, CodingKey {
        case v, id, host, pid, pools, procedures, slots, busy, interval, stopping, schemas
        case startedAt = "started_at"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try WireFormat.checkVersion(c, key: .v, what: "heartbeat")
        self.init(
            id: try c.decode(String.self, forKey: .id), host: try c.decode(String.self, forKey: .host),
            pid: try c.decode(Int.self, forKey: .pid), pools: try c.decode([String].self, forKey: .pools),
            procedures: try c.decode([String].self, forKey: .procedures), slots: try c.decode(Int.self, forKey: .slots),
            startedAt: Date(timeIntervalSince1970: try c.decode(Double.self, forKey: .startedAt)),
            busy: try c.decode(Int.self, forKey: .busy), interval: try c.decode(Double.self, forKey: .interval),
            stopping: try c.decodeIfPresent(Bool.self, forKey: .stopping) ?? false,
            schemas: (try? c.decodeIfPresent([String: ProcedureSchema].self, forKey: .schemas)) ?? nil)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(WireFormat.version, forKey: .v)
        try c.encode(id, forKey: .id)
        try c.encode(host, forKey: .host)
        try c.encode(pid, forKey: .pid)
        try c.encode(pools, forKey: .pools)
        try c.encode(procedures, forKey: .procedures)
        try c.encode(slots, forKey: .slots)
        try c.encode(startedAt.timeIntervalSince1970, forKey: .startedAt)
        try c.encode(busy, forKey: .busy)
        try c.encode(interval, forKey: .interval)
        if stopping { try c.encode(true, forKey: .stopping) }
        if let schemas { try c.encode(schemas, forKey: .schemas) }
    }

    /// The same heartbeat with `schemas` in place of its own.
    public func carrying(schemas: [String: ProcedureSchema]?) -> WorkerHeartbeat {
        WorkerHeartbeat(
            id: id, host: host, pid: pid, pools: pools, procedures: procedures, slots: slots, startedAt: startedAt, busy: busy,
            interval: interval, stopping: stopping, schemas: schemas)
    }

    public func encoded() -> [UInt8] { WireFormat.encode(self) }

    public init(decoding bytes: [UInt8]) throws { self = try WireFormat.decode(Self.self, from: bytes, what: "heartbeat") }
}
