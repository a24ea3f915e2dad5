import Baton
import Foundation

/// What a run's committed scheduler commands mean for its spans (`RunTracing` carries them out):
/// a pure reading of the commands, tested with no tracer.
enum TraceEvent: Sendable, Equatable {
    /// The node's attempt started on `worker`.
    case attemptRunning(key: String, worker: String?)
    /// The node's attempt in flight ended: `outcome` is the change's event kind (`succeeded`,
    /// `failed`, `retrying`, `timed_out`, `cancelled`, ...), `error` what it failed with.
    case attemptEnded(key: String, outcome: EventKind, error: String?, worker: String?)
    /// The run ended with `status`.
    case runEnded(RunStatus, error: String?)

    /// The events of `commands`, in order. A node change that leaves queued or running ends the
    /// attempt in flight, if any (a retry's wait, a reset, a cancel); queued ones start none here
    /// (the publication of the task does).
    static func events(of commands: [SchedulerCommand]) -> [TraceEvent] {
        var events: [TraceEvent] = []
        for command in commands {
            switch command {
            case let .node(change):
                switch change.status {
                case .queued, .pending, .ready:
                    if change.event == .reset {
                        events.append(.attemptEnded(key: change.key, outcome: .reset, error: change.error, worker: change.worker))
                    }
                case .running: events.append(.attemptRunning(key: change.key, worker: change.worker))
                case .waiting, .succeeded, .failed, .cancelled, .skipped:
                    events.append(.attemptEnded(key: change.key, outcome: change.eventKind, error: change.error, worker: change.worker))
                }
            case let .runStatus(status, error) where status.isTerminal:
                events.append(.runEnded(status, error: error))
            default: break
            }
        }
        return events
    }
}
