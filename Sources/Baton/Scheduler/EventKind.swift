/// The kind of an entry of a run's event log (`baton.events.kind`), shared by the scheduler that
/// writes it, the stores that record it, and the timeline, dashboard and simulator that read it.
/// The raw values are the exact text stored (no migration changed them).
///
/// Reading back: rows keep the kind as the stored text (`EventRow.kind`, `TimelineEvent.kind`,
/// `MemoryEventRow.kind`) and `EventKind(rawValue:)` gives the case. A kind this build does not know
/// (written by a newer coordinator during an upgrade) is nil there, never a crash and never an error:
/// rows are only displayed or counted, so an unknown one is shown as its text and decides nothing.
/// There is no `unknown(String)` case, so every `switch` over the kinds the scheduler writes is
/// exhaustive.
public enum EventKind: String, Sendable, Hashable, CaseIterable {
    // A node's new status, when no named event says more (`NodeChange.eventKind`).
    case pending, ready, queued, waiting, succeeded, failed, cancelled, skipped
    /// A node began running (its status `running`).
    case started

    // Named node events.
    case retrying, repeating, delay, reset, spawned, redelivered, admitted, cached, progress, log
    case timedOut = "timed_out"
    case deadLettered = "dead_lettered"
    /// A dead-lettered attempt that never started, sent out again.
    case deadLetteredUnstarted = "dead_lettered_unstarted"
    case leaseExpired = "lease_expired"
    case conditionQueued = "condition_queued"
    case conditionStarted = "condition_started"
    case awaitingAdmission = "awaiting_admission"
    case awaitingRate = "awaiting_rate"
    /// A node with `fair` waits in the coordinator for its key's turn (`AdmissionClaim.share`).
    case awaitingShare = "awaiting_share"
    case awaitingSignal = "awaiting_signal"
    case signalKept = "signal_kept"
    case signalIgnored = "signal_ignored"
    case logLimit = "log_limit"
    /// A node ready to go out waits instead: its run, pool or procedure is paused (`baton pause`).
    case paused

    // Events of the run itself (no node).
    case submitted
    case runPending = "run_pending"
    case runRunning = "run_running"
    case runSucceeded = "run_succeeded"
    case runFailed = "run_failed"
    case runCancelled = "run_cancelled"

    /// The event of a node's change to `status` with no named event: `started` for `running`.
    public init(status: NodeStatus) {
        switch status {
        case .pending: self = .pending
        case .ready: self = .ready
        case .queued: self = .queued
        case .running: self = .started
        case .waiting: self = .waiting
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .cancelled: self = .cancelled
        case .skipped: self = .skipped
        }
    }

    /// The event of a run's change to `status` (`run_succeeded`, …).
    public init(run status: RunStatus) {
        switch status {
        case .pending: self = .runPending
        case .running: self = .runRunning
        case .succeeded: self = .runSucceeded
        case .failed: self = .runFailed
        case .cancelled: self = .runCancelled
        }
    }
}
