import Baton

/// A stored webhook as `baton webhook list` and `GET /api/v1/webhooks` show it: never its secret.
public struct WebhookRow: Sendable, Equatable {
    public var id: Int64
    public var url: String
    public var events: [WebhookEventType]
    public var nameGlob: String?
    public var format: WebhookFormat
    /// Times in seconds since the epoch.
    public var createdAt: Double
    public var createdBy: String?
    public var disabledAt: Double?

    public init(
        id: Int64, url: String, events: [WebhookEventType], nameGlob: String?, format: WebhookFormat, createdAt: Double, createdBy: String?,
        disabledAt: Double?
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.nameGlob = nameGlob
        self.format = format
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.disabledAt = disabledAt
    }

    /// As `--json` and the API give it (times ISO 8601, UTC).
    public var json: JSON {
        .object(
            JSONObject([
                ("id", .int(id)), ("url", .string(url)), ("events", .array(events.map { .string($0.rawValue) })),
                ("name_glob", nameGlob.map(JSON.string) ?? .null), ("format", .string(format.rawValue)),
                ("created_at", .string(CivilDate.iso8601(createdAt))), ("created_by", createdBy.map(JSON.string) ?? .null),
                ("disabled_at", disabledAt.map { .string(CivilDate.iso8601($0)) } ?? .null),
            ]))
    }
}
