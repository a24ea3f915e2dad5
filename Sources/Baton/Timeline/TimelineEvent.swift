/// One node event of a run's log, as the timeline reads it (`Store.timelineEvents(ofRun:)`).
public struct TimelineEvent: Sendable, Equatable {
    /// The node's key.
    public var node: String
    /// The event's kind (`queued`, `started`, `retrying`, `awaiting_admission`, ...; see schema.md).
    public var kind: String
    /// When it happened, in seconds since 1970.
    public var at: Double
    /// The attempt in the event's detail, if any.
    public var attempt: Int?
    /// The detail's `due_at` (seconds since 1970): when a waiting node goes on.
    public var dueAt: Double?
    /// True when the detail's error says the attempt timed out (a worker-side timeout is a `failed` event).
    public var timedOut: Bool

    public init(node: String, kind: String, at: Double, attempt: Int? = nil, dueAt: Double? = nil, timedOut: Bool = false) {
        self.node = node
        self.kind = kind
        self.at = at
        self.attempt = attempt
        self.dueAt = dueAt
        self.timedOut = timedOut
    }

    /// The kind as a case (nil: a kind this build does not know, shown by its text: `TimelineRow.apply`).
    public var eventKind: EventKind? { EventKind(rawValue: kind) }
}
