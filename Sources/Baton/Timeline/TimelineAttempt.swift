/// One attempt of a node on the timeline: queued, started and finished (seconds since 1970; nil:
/// not recorded, or not yet), and how it ended (nil while it goes on).
public struct TimelineAttempt: Sendable, Equatable {
    /// The attempt number (`detail.attempt`).
    public var attempt: Int
    /// True for the node's condition (`condition_queued`, `condition_started`), false for its procedure.
    public var condition: Bool
    public var queued: Double?
    public var started: Double?
    public var finished: Double?
    public var outcome: TimelineOutcome?

    public init(
        attempt: Int, condition: Bool = false, queued: Double? = nil, started: Double? = nil, finished: Double? = nil,
        outcome: TimelineOutcome? = nil
    ) {
        self.attempt = attempt
        self.condition = condition
        self.queued = queued
        self.started = started
        self.finished = finished
        self.outcome = outcome
    }

    /// Its first recorded time.
    public var begin: Double? { queued ?? started ?? finished }
}
