import Baton

/// A stored trigger (`baton.triggers`): events of `eventType` whose data matches every filter start
/// its graph, with the data as the run input.
public struct TriggerRow: Sendable, Equatable {
    public var name: String
    public var eventType: String
    /// The graph document as `baton trigger add` validated it (its `input` defaults unresolved).
    public var graph: JSON
    public var filters: [TriggerFilter]
    /// PostgreSQL's `timestamptz` text in UTC, as `baton runs --json` prints times.
    public var createdAt: String
    /// Who added it: a token's name, or `cli (OS user NAME)`.
    public var createdBy: String?

    public init(name: String, eventType: String, graph: JSON, filters: [TriggerFilter], createdAt: String = "", createdBy: String? = nil) {
        self.name = name
        self.eventType = eventType
        self.graph = graph
        self.filters = filters
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    /// The graph's `name`.
    public var graphName: String { graph["name"]?.stringValue ?? name }

    /// Whether an event's `data` matches every filter.
    public func matches(_ data: JSON) -> Bool { filters.allSatisfy { $0.matches(data) } }

    /// The idempotency key of the run it starts for event `id`.
    public static func idempotencyKey(name: String, eventID: String) -> String { "trigger:\(name):\(eventID)" }

    /// As the API and `--json` give it; with the graph only when `graph` is true.
    public func json(graph withGraph: Bool) -> JSON {
        var members: [(key: String, value: JSON)] = [
            ("name", .string(name)), ("event_type", .string(eventType)), ("filters", .array(filters.map(\.json))),
            ("graph_name", .string(graphName)), ("created_at", .string(createdAt)), ("created_by", createdBy.map(JSON.string) ?? .null),
        ]
        if withGraph { members.append(("graph", graph)) }
        return .object(JSONObject(members))
    }
}

/// What `addTrigger` refuses: a trigger of that name exists.
public struct TriggerExists: Error, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String { "trigger '\(name)' already exists (delete it first, or choose another name)" }
}

/// Trigger names: as schedule names, `[a-z0-9][a-z0-9_.-]*`, at most 128 characters (so a name never
/// holds the `:` that separates it from the event id in `trigger:NAME:ID`).
public enum TriggerName {
    /// What is wrong with `name`, or nil if it is a trigger name.
    public static func problem(_ name: String) -> String? {
        ScheduleName.problem(name) == nil
            ? nil : "trigger name '\(name.prefix(200))' must be 1 to 128 of a-z, 0-9, '_', '.', '-', starting with a letter or digit"
    }
}

/// Event types: 1 to 128 of `A-Z a-z 0-9 _ . : / -`, starting with a letter or digit (`order.created`).
public enum EventType {
    /// What is wrong with `type`, or nil if it is an event type.
    public static func problem(_ type: String) -> String? {
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || "_.:/-".contains(c)) }
        guard let first = type.first, first.isASCII, first.isLetter || first.isNumber, type.count <= 128, type.allSatisfy(allowed) else {
            return "event type '\(type.prefix(200))' must be 1 to 128 of A-Z, a-z, 0-9, '_', '.', ':', '/', '-', starting with a letter or digit"
        }
        return nil
    }
}
