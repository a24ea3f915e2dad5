import Baton

/// One event to deliver to one webhook, with every attempt (`baton webhook deliveries`,
/// `GET /api/v1/webhooks/{id}/deliveries`).
public struct DeliveryRow: Sendable, Equatable {
    /// One try: the receiver's status (nil when it did not answer), the error, how long it took.
    public struct Attempt: Sendable, Equatable {
        public var attempt: Int
        public var at: Double
        public var status: Int?
        public var error: String?
        public var durationMs: Int
        public var coordinator: String?

        public init(attempt: Int, at: Double, status: Int?, error: String?, durationMs: Int, coordinator: String?) {
            self.attempt = attempt
            self.at = at
            self.status = status
            self.error = error
            self.durationMs = durationMs
            self.coordinator = coordinator
        }
    }

    public var id: Int64
    public var webhookID: Int64
    public var eventID: String
    public var type: String
    public var runID: String?
    public var state: String
    public var attempts: Int
    public var createdAt: Double
    public var nextAttemptAt: Double?
    public var deliveredAt: Double?
    public var lastStatus: Int?
    public var lastError: String?
    public var history: [Attempt]

    public init(
        id: Int64, webhookID: Int64, eventID: String, type: String, runID: String?, state: String, attempts: Int, createdAt: Double,
        nextAttemptAt: Double?, deliveredAt: Double?, lastStatus: Int?, lastError: String?, history: [Attempt]
    ) {
        self.id = id
        self.webhookID = webhookID
        self.eventID = eventID
        self.type = type
        self.runID = runID
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.history = history
    }

    /// As `--json` and the API give it (times ISO 8601, UTC).
    public var json: JSON {
        func time(_ t: Double?) -> JSON { t.map { .string(CivilDate.iso8601($0)) } ?? .null }
        return .object(
            JSONObject([
                ("id", .int(id)), ("webhook_id", .int(webhookID)), ("event_id", .string(eventID)), ("type", .string(type)),
                ("run_id", runID.map(JSON.string) ?? .null), ("state", .string(state)), ("attempts", .int(Int64(attempts))),
                ("created_at", time(createdAt)), ("next_attempt_at", time(nextAttemptAt)), ("delivered_at", time(deliveredAt)),
                ("last_status", lastStatus.map { .int(Int64($0)) } ?? .null), ("last_error", lastError.map(JSON.string) ?? .null),
                (
                    "history",
                    .array(
                        history.map { a in
                            .object(
                                JSONObject([
                                    ("attempt", .int(Int64(a.attempt))), ("at", time(a.at)), ("status", a.status.map { .int(Int64($0)) } ?? .null),
                                    ("error", a.error.map(JSON.string) ?? .null), ("duration_ms", .int(Int64(a.durationMs))),
                                    ("coordinator", a.coordinator.map(JSON.string) ?? .null),
                                ]))
                        })
                ),
            ]))
    }
}
