import Foundation

/// What the scheduler knows about one node of a run.
public struct NodeState: Sendable, Equatable {
    public var status: NodeStatus
    /// Attempts started so far; the current attempt's number once queued.
    public var attempt: Int
    /// The resolved input, once the node has been queued.
    public var input: JSON?
    public var output: JSON?
    public var error: String?
    public var worker: String?
    /// What runs while queued or running: the node's procedure or its condition.
    public var phase: TaskPhase = .run
    /// When a waiting node goes on (retry back-off, repeat wait, delay).
    public var dueAt: Date?
    /// Why a node is waiting.
    public var waitingFor: WaitReason?
    /// When a running attempt is given up as timed out.
    public var deadline: Date?
    /// Failed attempts in the current run of the node (for `retry`).
    public var failures: Int = 0
    /// Completed runs (for `repeat`).
    public var runs: Int = 0
    /// Progress and log events recorded for this node (they are bounded).
    public var logged: Int = 0
    /// The attempt whose task the broker is known to hold (confirmed): resuming the run does not
    /// publish it again. Nil when unknown, which publishes again (duplicates are harmless).
    public var publishedAttempt: Int?
    /// For a group, map or spawning node that ran before: the highest attempt its former children
    /// reached. New children number their attempts on from it, so a late report of a former child's
    /// attempt can never pass for one of the new child's.
    public var childAttemptBase: Int = 0

    public init(
        status: NodeStatus = .pending, attempt: Int = 0, input: JSON? = nil, output: JSON? = nil,
        error: String? = nil, worker: String? = nil
    ) {
        self.status = status
        self.attempt = attempt
        self.input = input
        self.output = output
        self.error = error
        self.worker = worker
    }

    /// The bookkeeping that is not a column of its own, stored as `baton.nodes.scheduler`.
    public var bookkeeping: JSON {
        var o: [(key: String, value: JSON)] = [
            ("phase", .string(phase.rawValue)), ("failures", .int(Int64(failures))),
            ("runs", .int(Int64(runs))), ("logged", .int(Int64(logged))),
        ]
        if let dueAt { o.append(("due_at", .double(dueAt.timeIntervalSince1970))) }
        if let waitingFor { o.append(("waiting_for", .string(waitingFor.rawValue))) }
        if let deadline { o.append(("deadline", .double(deadline.timeIntervalSince1970))) }
        if childAttemptBase > 0 { o.append(("child_attempt_base", .int(Int64(childAttemptBase)))) }
        return .object(JSONObject(o))
    }

    /// Restores what `bookkeeping` stored.
    public mutating func restore(bookkeeping json: JSON) {
        phase = json["phase"]?.stringValue.flatMap(TaskPhase.init(rawValue:)) ?? .run
        failures = json["failures"]?.intValue ?? 0
        runs = json["runs"]?.intValue ?? 0
        logged = json["logged"]?.intValue ?? 0
        dueAt = json["due_at"]?.numberValue.map(Date.init(timeIntervalSince1970:))
        waitingFor = json["waiting_for"]?.stringValue.flatMap(WaitReason.init(rawValue:))
        deadline = json["deadline"]?.numberValue.map(Date.init(timeIntervalSince1970:))
        childAttemptBase = json["child_attempt_base"]?.intValue ?? 0
    }
}
