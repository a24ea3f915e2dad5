/// What a schedule does now: the due times to fire (oldest first; each becomes a run with the
/// idempotency key `schedule:NAME:TIME`), those skipped, and the state to store with them.
public struct ScheduleStep: Sendable, Equatable {
    public var fire: [Double] = []
    public var skipped: [ScheduleSkip] = []
    /// Missed times passed over without being listed in `skipped` (beyond `catchUpBound`).
    public var uncounted = 0
    public var state: ScheduleState

    public init(state: ScheduleState) { self.state = state }

    /// Whether anything changed: nothing to fire or store.
    public var isIdle: Bool { fire.isEmpty && skipped.isEmpty && uncounted == 0 }
}
