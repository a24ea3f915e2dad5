import Foundation

/// What the scheduler knows about one node of a run. The fields live out of line, copied on write:
/// a run keeps its nodes' states in a dictionary, which for 100,000 nodes holds 8 bytes a node (times
/// its spare capacity) instead of about 190, and the box itself about 130.
public struct NodeState: Sendable, Equatable {
    /// Stored compactly (narrow counters, times as seconds with NaN for none), small fields first.
    struct Fields {
        var status: NodeStatus = .pending
        var phase: TaskPhase = .run
        var waitingFor: WaitReason? = nil
        var admission: AdmissionHold = .none
        var admissionNewAttempt: Bool = true
        var attempt: Int32 = 0
        var failures: Int32 = 0
        var runs: Int32 = 0
        var logged: Int32 = 0
        var childAttemptBase: Int32 = 0
        var unstartedDeadLetters: Int32 = 0
        var publishedAttempt: Int32 = -1
        var dueAt: Double = .nan
        var deadline: Double = .nan
        var input: JSON? = nil
        var output: JSON? = nil
        /// The output was dropped from memory (`RunState.offloadOutputs`): the store has it.
        var outputOffloaded = false
        var error: String? = nil
        var worker: String? = nil
        var keptSignal: KeptSignal? = nil
        var token: AttemptToken? = nil
    }

    /// Mutated only while uniquely referenced (`fields`'s `_modify` copies it first otherwise).
    private final class Box: @unchecked Sendable {
        var fields: Fields
        /// The scheduler's count of the node's dependencies that have not ended (not part of the state's value).
        var openDependencies: Int32 = 0
        /// The nodes that wait for this one, in graph order (also `RunState`'s, and not part of the value).
        var dependents: [String] = []
        init(_ fields: Fields, openDependencies: Int32 = 0, dependents: [String] = []) {
            self.fields = fields
            self.openDependencies = openDependencies
            self.dependents = dependents
        }
    }

    private var box: Box

    private var fields: Fields {
        get { box.fields }
        _modify {
            makeUnique()
            yield &box.fields
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields, openDependencies: box.openDependencies, dependents: box.dependents) }
    }

    /// How many of the node's dependencies have not ended yet: `RunState`'s bookkeeping, kept here so a
    /// large run needs no dictionary of its own for it. It takes no part in `==`.
    /// The nodes that depend on this one, in graph order: `RunState`'s bookkeeping, kept here for the
    /// same reason as `openDependencies`, and likewise no part of `==`.
    var dependents: [String] {
        get { box.dependents }
        set {
            makeUnique()
            box.dependents = newValue
        }
    }

    var openDependencies: Int {
        get { Int(box.openDependencies) }
        set {
            makeUnique()
            box.openDependencies = Int32(clamping: newValue)
        }
    }

    public var status: NodeStatus {
        get { box.fields.status }
        set { fields.status = newValue }
    }
    /// Attempts started so far; the current attempt's number once queued.
    public var attempt: Int {
        get { Int(box.fields.attempt) }
        set { fields.attempt = Int32(clamping: newValue) }
    }
    /// The resolved input, once the node has been queued.
    public var input: JSON? {
        get { box.fields.input }
        set { fields.input = newValue }
    }
    public var output: JSON? {
        get { box.fields.output }
        set {
            fields.output = newValue
            if box.fields.outputOffloaded { fields.outputOffloaded = false }
        }
    }
    /// True when the node's output is not held in memory but in the store (`RunState.offloadOutputs`).
    public var outputOffloaded: Bool { box.fields.outputOffloaded }

    /// Drops the output from memory; `RunState.output(of:)` reads it from the store when needed.
    mutating func offloadOutput() {
        fields.output = nil
        fields.outputOffloaded = true
    }
    public var error: String? {
        get { box.fields.error }
        set { fields.error = newValue }
    }
    public var worker: String? {
        get { box.fields.worker }
        set { fields.worker = newValue }
    }
    /// What runs while queued or running: the node's procedure or its condition.
    public var phase: TaskPhase {
        get { box.fields.phase }
        set { fields.phase = newValue }
    }
    /// When a waiting node goes on (retry back-off, repeat wait, delay).
    public var dueAt: Date? {
        get { box.fields.dueAt.isNaN ? nil : Date(timeIntervalSince1970: box.fields.dueAt) }
        set { fields.dueAt = newValue?.timeIntervalSince1970 ?? .nan }
    }
    /// Why a node is waiting.
    public var waitingFor: WaitReason? {
        get { box.fields.waitingFor }
        set { fields.waitingFor = newValue }
    }
    /// When a running attempt is given up as timed out.
    public var deadline: Date? {
        get { box.fields.deadline.isNaN ? nil : Date(timeIntervalSince1970: box.fields.deadline) }
        set { fields.deadline = newValue?.timeIntervalSince1970 ?? .nan }
    }
    /// Failed attempts in the current run of the node (for `retry`).
    public var failures: Int {
        get { Int(box.fields.failures) }
        set { fields.failures = Int32(clamping: newValue) }
    }
    /// Completed runs (for `repeat`).
    public var runs: Int {
        get { Int(box.fields.runs) }
        set { fields.runs = Int32(clamping: newValue) }
    }
    /// Progress and log events recorded for this node (they are bounded).
    public var logged: Int {
        get { Int(box.fields.logged) }
        set { fields.logged = Int32(clamping: newValue) }
    }
    /// The attempt whose task the broker is known to hold (confirmed): resuming the run does not
    /// publish it again. Nil when unknown, which publishes again (duplicates are harmless).
    public var publishedAttempt: Int? {
        get { box.fields.publishedAttempt < 0 ? nil : Int(box.fields.publishedAttempt) }
        set { fields.publishedAttempt = newValue.map { Int32(clamping: $0) } ?? -1 }
    }
    /// For a group, map or spawning node that ran before: the highest attempt its former children
    /// reached. New children number their attempts on from it, so a late report of a former child's
    /// attempt can never pass for one of the new child's.
    public var childAttemptBase: Int {
        get { Int(box.fields.childAttemptBase) }
        set { fields.childAttemptBase = Int32(clamping: newValue) }
    }
    /// Attempts of this node that were dead-lettered before they started and were dispatched again
    /// (`RunState+DeadLetters`): bounded, so a task that kills its worker before saying so still ends.
    public var unstartedDeadLetters: Int {
        get { Int(box.fields.unstartedDeadLetters) }
        set { fields.unstartedDeadLetters = Int32(clamping: newValue) }
    }
    /// Whether the node asked for, or holds, its mutexes, concurrency slot or cache slot.
    public var admission: AdmissionHold {
        get { box.fields.admission }
        set { fields.admission = newValue }
    }
    /// Whether the attempt that waits for admission is a new one (false after a condition, which counted it).
    public var admissionNewAttempt: Bool {
        get { box.fields.admissionNewAttempt }
        set { fields.admissionNewAttempt = newValue }
    }

    /// A signal that came before the node waited for one: consumed when it does (`RunState+Signals`).
    public var keptSignal: KeptSignal? {
        get { box.fields.keptSignal }
        set { fields.keptSignal = newValue }
    }

    /// The token of the current attempt (`AttemptToken`), drawn when it was queued; nil for an
    /// attempt queued without one (by a coordinator from before tokens, or in process).
    public var attemptToken: AttemptToken? {
        get { box.fields.token }
        set { fields.token = newValue }
    }

    public init(
        status: NodeStatus = .pending, attempt: Int = 0, input: JSON? = nil, output: JSON? = nil,
        error: String? = nil, worker: String? = nil
    ) {
        var fields = Fields()
        fields.status = status
        fields.attempt = Int32(clamping: attempt)
        fields.input = input
        fields.output = output
        fields.error = error
        fields.worker = worker
        box = Box(fields)
    }

    public static func == (lhs: NodeState, rhs: NodeState) -> Bool {
        guard lhs.box !== rhs.box else { return true }
        return lhs.status == rhs.status && lhs.attempt == rhs.attempt && lhs.input == rhs.input && lhs.output == rhs.output
            && lhs.error == rhs.error && lhs.worker == rhs.worker && lhs.phase == rhs.phase && lhs.dueAt == rhs.dueAt
            && lhs.waitingFor == rhs.waitingFor && lhs.deadline == rhs.deadline && lhs.failures == rhs.failures && lhs.runs == rhs.runs
            && lhs.logged == rhs.logged && lhs.publishedAttempt == rhs.publishedAttempt && lhs.childAttemptBase == rhs.childAttemptBase
            && lhs.admission == rhs.admission && lhs.admissionNewAttempt == rhs.admissionNewAttempt
            && lhs.unstartedDeadLetters == rhs.unstartedDeadLetters && lhs.keptSignal == rhs.keptSignal
            && lhs.attemptToken == rhs.attemptToken
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
        if admission != .none { o.append(("admission", .string(admission.rawValue))) }
        if !admissionNewAttempt { o.append(("admission_new_attempt", false)) }
        if unstartedDeadLetters > 0 { o.append(("unstarted_dead_letters", .int(Int64(unstartedDeadLetters)))) }
        if let keptSignal { o.append(("signal", keptSignal.json)) }
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
        admission = json["admission"]?.stringValue.flatMap(AdmissionHold.init(rawValue:)) ?? .none
        admissionNewAttempt = json["admission_new_attempt"]?.boolValue ?? true
        unstartedDeadLetters = json["unstarted_dead_letters"]?.intValue ?? 0
        keptSignal = json["signal"].flatMap(KeptSignal.init(json:))
    }
}
