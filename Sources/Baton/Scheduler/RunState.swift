import Foundation

/// The scheduler of one run as a value-type state machine:
/// `handle(event, at:, random:)` updates the state and returns the commands that carry it out.
/// It does no I/O and reads no clock: the time and randomness come with each event,
/// so the coordinator and the in-process engine drive it the same way, and tests exactly.
public struct RunState: Sendable {
    public let runID: String
    /// The submitted graph, with the children of groups, maps and spawning nodes added as they start.
    public internal(set) var graph: Graph
    public internal(set) var status: RunStatus
    public internal(set) var error: String?
    public internal(set) var nodes: [String: NodeState]

    /// Per group, map or spawning node that has started, its children in order.
    var children: [String: [String]] = [:]
    /// The fragment each such node expanded into (its output template is needed when it ends).
    var fragments: [String: GroupSpec] = [:]
    /// Per map with a concurrency bound, children held back until others end, in order.
    var heldBack: [String: [String]] = [:]
    /// Nodes that have not ended yet.
    var remaining = 0
    /// Nodes with a due time or a deadline, by the earlier of the two.
    var timers = TimerQueue<String>()
    /// Set by a cancel request: the run ends `cancelled`.
    var cancelRequested = false
    /// Nodes with a task out (see `RunState+Window`), and ready nodes waiting for room among them.
    var outstanding: OutstandingTasks = []
    var ready = ReadyQueue()
    /// The names of the workers that ran the run's nodes, so each node's state shares one copy of its worker's name.
    var workerNames: Set<String> = []
    /// At most this many nodes of the run have a task out at once (see `RunState+Window`).
    public var dispatchWindow = RunState.defaultDispatchWindow
    /// Nor more than about this many bytes of inputs (a task whose input alone is larger still goes
    /// out, alone): a fan-out of big injected inputs is published, held and committed a slice at a time.
    public var dispatchWindowBytes = RunState.defaultDispatchWindowBytes
    /// The bounds on nodes (counting children added at run time), nesting and inputs.
    public var limits = GraphLimits()
    /// What is paused (`RunState+Pauses`): set before `.start` when the run is loaded, changed with `setPauses`.
    public var pauses = Pauses()
    /// Reads the stored output of a node whose output was dropped from memory (`offloadOutputs`);
    /// nil keeps every output in memory. The coordinator's reads PostgreSQL (`nodes.output`).
    public var outputReader: (@Sendable (String) -> JSON?)?
    /// Whether nodes' resolved inputs leave memory once handed out in commands (`RunState+Inputs`): the
    /// coordinator's, whose store keeps them; retries and tasks sent again build them again.
    public var dropsInputs = false
    /// The largest input a node may be dispatched with (JSON bytes, after injection).
    public var maxInputBytes: Int {
        get { limits.maxInputBytes }
        set { limits.maxInputBytes = newValue }
    }

    /// Grace beyond a node's timeout before the coordinator gives up on a worker's answer.
    public static func timeoutGrace(_ timeout: Double) -> Double { max(2, timeout * 0.1) }
    /// Progress and log events kept per node.
    public static let logLimit = 200
    public static let logLineLimit = 2_000

    /// A run as stored: `nodes` gives the state of each node (missing ones are pending; those of keys
    /// neither the graph nor a fragment has are dropped), and `fragments` the children each started
    /// group, map or spawning node added, parents first. The states are taken, not copied: for a
    /// large run, holding two copies at once would double what loading it costs.
    public init(
        runID: String, graph: Graph, status: RunStatus = .pending, error: String? = nil, nodes: consuming [String: NodeState] = [:],
        fragments: [(parent: String, fragment: GroupSpec)] = []
    ) {
        self.runID = runID
        self.graph = graph
        self.status = status
        self.error = error
        self.nodes = nodes
        self.nodes.reserveCapacity(graph.order.count)
        for key in graph.order where self.nodes[key] == nil { self.nodes[key] = NodeState() }
        for key in graph.order {
            for dependency in graph.nodes[key]!.dependencies { self.nodes[dependency]?.dependents.append(key) }
        }
        self.cancelRequested = status == .cancelled
        for (parent, fragment) in fragments where self.graph.nodes[parent] != nil { addChildren(of: parent, fragment, keepingStored: true) }
        if self.nodes.count != self.graph.order.count { self.nodes = self.nodes.filter { self.graph.nodes[$0.key] != nil } }
        recount()
    }

    /// Recomputes the counters from the node states.
    mutating func recount() {
        var remaining = 0
        timers = TimerQueue()
        let previous = outstanding  // the sizes of the inputs out that are no longer held (`dropsInputs`)
        outstanding = []
        for key in graph.order {
            let open = graph.nodes[key]!.dependencies.reduce(0) { $0 + (nodes[$1]?.status.isTerminal ?? true ? 0 : 1) }
            if nodes[key]!.openDependencies != open { nodes[key]!.openDependencies = open }  // in place: no copy of the node is held here
            let node = nodes[key]!
            if hasTask(key, node) { outstanding.insert(key, bytes: node.input?.estimatedBytes ?? previous.bytes(of: key) ?? 0) }
            if !node.status.isTerminal { remaining += 1 }
            timers.set(key, at: Self.wakeUp(node))
        }
        self.remaining = remaining
        // A map bounded by `concurrency` releases pending children only as others finish.
        heldBack = [:]
        for (parent, keys) in children {
            guard case let .map(spec) = graph.nodes[parent]!.kind, let bound = spec.concurrency else { continue }
            let busy = keys.filter { nodes[$0]!.status != .pending && !nodes[$0]!.status.isTerminal }.count
            let waiting = keys.filter { nodes[$0]!.status == .pending }
            let held = Array(waiting.dropFirst(max(0, bound - busy)))
            for key in held { nodes[key]!.openDependencies += 1 }
            if !held.isEmpty { heldBack[parent] = held }
        }
    }

    /// Applies one event at time `now` and returns what must be persisted and sent.
    /// `random` yields numbers in 0..<1 for random waits and jitter; `tokens`, when given, the token
    /// of each attempt queued (`AttemptToken.random` on a cluster): without it attempts have none.
    public mutating func handle(
        _ event: SchedulerEvent, at now: Date = Date(),
        random: @escaping () -> Double = { Double.random(in: 0..<1) }, tokens: (() -> AttemptToken)? = nil
    ) -> [SchedulerCommand] {
        var out = Commands(now: now, random: random, tokens: tokens)
        if case let .retry(from) = event {
            retryRun(from: from, into: &out)
            releaseReady(into: &out)
            finishIfDone(into: &out)
            return out.list
        }
        guard !status.isTerminal else { return [] }
        switch event {
        case .start: start(into: &out)
        case let .started(key, attempt, worker, at): started(key, attempt: attempt, worker: worker, at: at ?? now, into: &out)
        case let .result(result): apply(result, into: &out)
        case .tick: fireTimers(into: &out)
        case let .workerLost(worker): reclaim(from: worker, into: &out)
        case let .deadLettered(key, attempt, reason): deadLettered(key, attempt: attempt, reason: reason, into: &out)
        case let .cancel(reason): cancelRun(reason: reason, into: &out)
        case let .progress(key, attempt, fraction, message):
            var detail: [(key: String, value: JSON)] = [("attempt", .int(Int64(attempt))), ("fraction", .double(fraction))]
            if let message { detail.append(("message", .string(String(message.prefix(Self.logLineLimit))))) }
            record(key, attempt: attempt, kind: .progress, detail: .object(JSONObject(detail)), into: &out)
        case let .log(key, attempt, message):
            record(
                key, attempt: attempt, kind: .log,
                detail: ["attempt": .int(Int64(attempt)), "message": .string(String(message.prefix(Self.logLineLimit)))], into: &out)
        case .retry: break
        case let .admitted(key): admitted(key, into: &out)
        case let .cached(key, hit): cached(key, hit: hit, into: &out)
        case let .signal(key, value, at): signalled(key, value: value, at: at, into: &out)
        }
        releaseReady(into: &out)
        finishIfDone(into: &out)
        return out.list
    }

    /// The earliest due time or deadline, when the shell should send `.tick` (read from a heap, not a scan).
    public var nextWakeUp: Date? { timers.earliest }

    /// When a node needs a `.tick`: the earlier of its due time and its deadline.
    static func wakeUp(_ node: NodeState) -> Date? {
        switch (node.dueAt, node.deadline) {
        case let (due?, deadline?): min(due, deadline)
        case let (due?, nil): due
        case let (nil, deadline?): deadline
        case (nil, nil): nil
        }
    }

    /// How many nodes are in each status.
    public var counts: [NodeStatus: Int] {
        var result: [NodeStatus: Int] = [:]
        for node in nodes.values { result[node.status, default: 0] += 1 }
        return result
    }

    // MARK: - Building blocks shared by the transitions

    /// Commands being collected for one event, with that event's clock and randomness.
    struct Commands {
        let now: Date
        let random: () -> Double
        /// Draws the token of an attempt being queued (nil: attempts get none).
        let tokens: (() -> AttemptToken)?
        var list: [SchedulerCommand] = []
        /// While a failed attempt's result is applied: its node and the type name of the error its
        /// procedure threw, which the node's change records (see `set`).
        var thrown: (key: String, type: String)?
        mutating func append(_ command: SchedulerCommand) { list.append(command) }
    }

    /// The one copy of a worker's name that the run's node states share (a report brings a fresh one each time).
    mutating func intern(_ worker: String) -> String { workerNames.insert(worker).memberAfterInsert }

    /// Releases what the node holds or asks for (mutexes, a concurrency slot, a cache lookup), if anything.
    func giveBackAdmission(_ state: inout NodeState, _ key: String, into out: inout Commands) {
        guard state.admission != .none else { return }
        state.admission = .none
        state.admissionNewAttempt = true
        out.append(.release(key: key))
    }

    /// Writes `state` for `key`, keeps the timer set in step, and emits the change.
    /// A node that leaves queued/running (or stops waiting for admission) releases what it held or asked for.
    mutating func set(_ key: String, _ state: NodeState, _ change: NodeChange, into out: inout Commands) {
        var state = state
        let keeps =
            state.admission == .held
            ? state.status == .queued || state.status == .running
            : state.status == .waiting && state.waitingFor == .admission
        if !keeps { giveBackAdmission(&state, key, into: &out) }
        trackTask(key, state)  // before the input is dropped: the window counts its bytes while the task is out
        nodes[key] = held(state)
        timers.set(key, at: Self.wakeUp(state))
        var change = change
        change.bookkeeping = state.bookkeeping
        if change.dueAt == nil { change.dueAt = state.dueAt }
        if let thrown = out.thrown, thrown.key == key, change.error != nil { change.errorType = thrown.type }
        out.append(.node(change))
    }

    /// The task of `key`'s attempt, with the token its state holds (set before, when it was queued).
    func dispatch(for key: String, attempt: Int, input: JSON, phase: TaskPhase = .run, previousOutput: JSON? = nil) -> TaskDispatch {
        let node = graph.nodes[key]!
        let procedure = phase == .condition ? node.policies.condition!.procedure : node.procedure
        var task = TaskDispatch(
            runID: runID, key: key, attempt: attempt, procedure: procedure, input: input,
            pool: node.pool, priority: node.priority, phase: phase,
            timeout: phase == .run ? node.policies.timeout : nil, previousOutput: previousOutput)
        task.attemptToken = nodes[key]?.attemptToken?.text
        return task
    }

    /// The output a dependent sees: none for a node that did not succeed, so its
    /// references inject `null` whatever they select (this includes a failure with
    /// `on_failure: ignore`, which dependents otherwise treat as a success).
    func visibleOutput(_ key: String) -> JSON? {
        guard let node = nodes[key], node.status == .succeeded else { return nil }
        return output(of: key, node) ?? .null
    }

    /// The node's output: held in memory, or read through `outputReader` when it was offloaded.
    func output(of key: String, _ node: NodeState) -> JSON? {
        if let output = node.output { return output }
        return node.outputOffloaded ? outputReader?(key) : nil
    }

    /// Drops from memory the outputs of ended nodes of at least `minimumBytes` (estimated), which the
    /// store holds once their changes are committed: the coordinator's memory budget. With no
    /// `outputReader` nothing is dropped. Returns about the bytes freed.
    public mutating func offloadOutputs(minimumBytes: Int) -> Int {
        guard outputReader != nil else { return 0 }
        var freed = 0
        for key in graph.order {
            guard let node = nodes[key], node.status.isTerminal, let output = node.output else { continue }
            let bytes = output.estimatedBytes
            guard bytes >= minimumBytes else { continue }
            freed += bytes
            nodes[key]!.offloadOutput()
        }
        return freed
    }

    /// About the bytes of the outputs held in memory.
    public var heldOutputBytes: Int { nodes.values.reduce(0) { $0 + ($1.output?.estimatedBytes ?? 0) } }

    private mutating func record(_ key: String, attempt: Int, kind: EventKind, detail: JSON, into out: inout Commands) {
        guard var node = nodes[key], node.attempt == attempt, node.status == .queued || node.status == .running else { return }
        guard node.logged <= Self.logLimit else { return }
        node.logged += 1
        nodes[key] = node
        if node.logged > Self.logLimit {
            out.append(
                .event(
                    key: key, kind: .logLimit,
                    detail: [
                        "attempt": .int(Int64(attempt)),
                        "message": .string("more than \(Self.logLimit) progress and log events for this node; the rest are dropped"),
                    ]))
        } else {
            out.append(.event(key: key, kind: kind, detail: detail))
        }
    }

    mutating func finishIfDone(into out: inout Commands) {
        guard remaining == 0, status == .running else { return }
        // Only the graph's own nodes decide: a child's failure is its group's or map's to judge.
        let top = graph.order.filter { Self.parent(of: $0) == nil }
        let failed = top.filter { nodes[$0]!.status == .failed && graph.nodes[$0]!.policies.onFailure == .fail }
        let cancelled = top.filter { nodes[$0]!.status == .cancelled }
        if cancelRequested {
            status = .cancelled
            error = error ?? "cancelled"
        } else if failed.isEmpty && cancelled.isEmpty {
            status = .succeeded
            error = nil
        } else {
            status = .failed
            if let first = failed.first {
                let more = failed.count > 1 ? " (and \(failed.count - 1) more failed)" : ""
                error = "node '\(first)' failed: \(nodes[first]!.error ?? "unknown error")\(more)"
            } else {
                error = "node '\(cancelled[0])' was cancelled: \(nodes[cancelled[0]]!.error ?? "")"
            }
        }
        out.append(.runStatus(status, error: error))
    }
}
