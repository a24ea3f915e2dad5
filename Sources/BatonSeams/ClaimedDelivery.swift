/// A due delivery a coordinator has claimed (leased) to post now, with what it needs to post it.
public struct ClaimedDelivery: Sendable, Equatable {
    public var id: Int64
    public var webhookID: Int64
    public var eventID: String
    public var type: String
    /// The event as JSON text, as the trigger wrote it.
    public var body: String
    /// Attempts made before this one.
    public var attempts: Int
    /// When the event was enqueued, seconds since 1970 (the 24 h give-up counts from it).
    public var createdAt: Double
    public var url: String
    public var secret: String
    public var format: WebhookFormat

    public init(
        id: Int64, webhookID: Int64, eventID: String, type: String, body: String, attempts: Int, createdAt: Double, url: String, secret: String,
        format: WebhookFormat
    ) {
        self.id = id
        self.webhookID = webhookID
        self.eventID = eventID
        self.type = type
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
        self.url = url
        self.secret = secret
        self.format = format
    }
}
