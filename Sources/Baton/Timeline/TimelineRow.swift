/// One node on the timeline: its attempts and waits, oldest first, and how it ended.
public struct TimelineRow: Sendable, Equatable {
    public var key: String
    /// The node's stored status (`baton.nodes.status`).
    public var status: String
    public var attempts: [TimelineAttempt] = []
    public var waits: [TimelineWait] = []
    /// How the node ended (nil: it has not, or was reset); also for a node that never ran
    /// (skipped or cancelled because of a dependency).
    public var outcome: TimelineOutcome?
    /// When it ended (seconds since 1970), with `outcome`.
    public var ended: Double?
    /// Its first activity (seconds since 1970): the first event that began an interval or ended it.
    public var first: Double?

    public init(key: String, status: String) {
        self.key = key
        self.status = status
    }

    /// The row after `event`, the next of the node's events in the order they were written.
    public mutating func apply(_ event: TimelineEvent) {
        let at = event.at
        let attempt = event.attempt ?? attempts.last?.attempt ?? 0
        switch event.eventKind {
        case .queued:
            endWait(at)
            if let open = openAttempt, attempts[open].condition, attempts[open].attempt == attempt {
                finish(at, .succeeded)  // the condition said yes
            } else {
                finish(at, nil)
            }
            begin(TimelineAttempt(attempt: attempt, queued: at), at)
        case .conditionQueued:
            endWait(at)
            finish(at, nil)
            begin(TimelineAttempt(attempt: attempt, condition: true, queued: at), at)
        case .started, .conditionStarted, .spawned:
            endWait(at)
            if openAttempt == nil { begin(TimelineAttempt(attempt: attempt, condition: event.eventKind == .conditionStarted), at) }
            let open = openAttempt!
            if attempts[open].started == nil { attempts[open].started = max(at, attempts[open].queued ?? at) }
        case .succeeded: end(at, .succeeded)
        case .failed: end(at, event.timedOut ? .timedOut : .failed)
        case .timedOut: end(at, .timedOut)
        case .cancelled: end(at, .cancelled)
        case .skipped: end(at, .skipped)
        case .deadLettered: end(at, .deadLettered)
        case .deadLetteredUnstarted: finish(at, .deadLettered)
        case .leaseExpired: finish(at, .lost)
        case .admitted, .cached: endWait(at)
        case .reset:
            finish(at, .cancelled)
            endWait(at)
            outcome = nil
            ended = nil
        case .progress, .log, .logLimit, .redelivered: break  // they change nothing on the timeline
        default:  // a wait (`retrying`, `awaiting_…`, …), also of a kind this build does not know, by its text
            guard let reason = TimelineWait.reason(forKind: event.kind, hasDue: event.dueAt != nil) else { return }
            // A retry or repeat ends the attempt before it: failed (unless a timeout said more), or succeeded.
            finish(at, reason == "repeat" ? .succeeded : event.timedOut ? .timedOut : .failed)
            endWait(at)
            outcome = nil
            ended = nil
            waits.append(TimelineWait(reason: reason, attempt: attempt, from: at, due: event.dueAt))
            first = first ?? at
        }
    }

    /// Every interval still open closed at `time` (for a run that ended with some left open).
    public mutating func close(at time: Double) {
        if let open = openAttempt { attempts[open].finished = max(time, attempts[open].begin ?? time) }
        endWait(time)
    }

    /// The index of the attempt that has not finished, if any.
    var openAttempt: Int? {
        guard let last = attempts.indices.last, attempts[last].finished == nil else { return nil }
        return last
    }

    private mutating func begin(_ attempt: TimelineAttempt, _ at: Double) {
        attempts.append(attempt)
        first = first ?? at
        outcome = nil
        ended = nil
    }

    /// The open attempt finished at `at` with `outcome` (nil: unknown).
    private mutating func finish(_ at: Double, _ outcome: TimelineOutcome?) {
        guard let open = openAttempt else { return }
        attempts[open].finished = max(at, attempts[open].started ?? attempts[open].queued ?? at)
        attempts[open].outcome = outcome
    }

    private mutating func endWait(_ at: Double) {
        guard let last = waits.indices.last, waits[last].to == nil else { return }
        waits[last].to = max(at, waits[last].from)
    }

    /// The node ended: its open attempt and wait end with it.
    private mutating func end(_ at: Double, _ outcome: TimelineOutcome) {
        finish(at, outcome)
        endWait(at)
        self.outcome = outcome
        ended = at
        first = first ?? at
    }
}
