import Baton

/// An event received by `POST /events` (`baton.trigger_events`) and the runs it started.
public struct TriggerEventRow: Sendable, Equatable {
    /// The run one matching trigger started for the event, or why it could not.
    public struct Run: Sendable, Equatable {
        public var trigger: String
        public var runID: String?
        public var error: String?
        /// The run's status now (nil when there is no run, or it was pruned).
        public var status: RunStatus?

        public init(trigger: String, runID: String?, error: String?, status: RunStatus? = nil) {
            self.trigger = trigger
            self.runID = runID
            self.error = error
            self.status = status
        }

        public var json: JSON {
            ["trigger": .string(trigger), "run_id": runID.map(JSON.string) ?? .null, "error": error.map(JSON.string) ?? .null]
        }
    }

    public var id: String
    public var type: String
    public var data: JSON
    /// PostgreSQL's `timestamptz` text in UTC.
    public var receivedAt: String
    public var tokenName: String?
    public var source: String?
    /// The triggers it matched when first received, by name.
    public var matched: [String]
    public var runs: [Run]

    public init(
        id: String, type: String, data: JSON, receivedAt: String, tokenName: String?, source: String?, matched: [String], runs: [Run]
    ) {
        self.id = id
        self.type = type
        self.data = data
        self.receivedAt = receivedAt
        self.tokenName = tokenName
        self.source = source
        self.matched = matched
        self.runs = runs
    }

    public var json: JSON {
        .object(
            JSONObject([
                ("id", .string(id)), ("type", .string(type)), ("data", data), ("received_at", .string(receivedAt)),
                ("token_name", tokenName.map(JSON.string) ?? .null), ("source", source.map(JSON.string) ?? .null),
                ("matched", .array(matched.map(JSON.string))), ("runs", .array(runs.map(\.json))),
            ]))
    }
}

/// What `receiveEvent` did with a post: the runs of every trigger the event matched.
public struct EventReceipt: Sendable, Equatable {
    public var eventID: String
    public var type: String
    /// True when the id was received before: the runs are those of the first receipt.
    public var duplicate: Bool
    public var runs: [TriggerEventRow.Run]

    public var json: JSON {
        ["event_id": .string(eventID), "type": .string(type), "duplicate": .bool(duplicate), "runs": .array(runs.map(\.json))]
    }
}

/// The id was received before with another type or data: not a repost, a mistake.
public struct EventIDConflict: Error, Sendable, CustomStringConvertible {
    public let id: String
    public var description: String {
        "event id '\(id.prefix(200))' was received before with another type or data; an id names one event (use a new id)"
    }
}
