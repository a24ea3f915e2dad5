/// What a schedule remembers between firings: the earliest due time not yet handled, and under
/// `--overlap queue` the due time waiting for the previous run to finish.
public struct ScheduleState: Sendable, Equatable {
    public var nextDue: Double?
    public var queued: Double?

    public init(nextDue: Double?, queued: Double? = nil) {
        self.nextDue = nextDue
        self.queued = queued
    }
}
