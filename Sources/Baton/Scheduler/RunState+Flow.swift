import Foundation

/// Starting nodes: deciding what a node whose dependencies have ended does.
extension RunState {
    mutating func start(into out: inout Commands) {
        if status == .pending {
            status = .running
            out.append(.runStatus(.running, error: nil))
        }
        var ready: [String] = []
        var resumed: [String] = []
        for key in graph.order {
            let node = nodes[key]!
            switch node.status {
            case .running:
                // A worker has it (if that worker is gone, its lease runs out and the node goes out again),
                // or it is a parent, decided now if its children ended.
                ready += resumeParent(key, into: &out)
            case .queued where node.publishedAttempt == node.attempt:
                break  // the broker confirmed it: publishing it again would only multiply the backlog
            case .queued:
                // Resume: publish what may not have reached the broker; the attempt number makes a duplicate harmless.
                switch redispatch(key) {
                case let .success(task): out.append(.dispatch(task))
                case let .failure(failure):
                    // The task may be on the broker after all: a worker that takes it is told to drop it.
                    out.append(.cancelTasks(runID: runID, attempts: [TaskRef(key: key, attempt: node.attempt)]))
                    ready += end(key, as: .failed, error: failure.description, into: &out)
                }
            case .pending where node.openDependencies == 0:
                ready.append(key)
            case .waiting where node.waitingFor == .paused:
                resumed.append(key)  // its pause may have ended while no coordinator held the run
            default:
                break
            }
        }
        dropHeldInputs()  // those the store gave, now in the commands that need them
        var seen = Set<String>()
        evaluate(ready.filter { seen.insert($0).inserted }, into: &out)
        if !resumed.isEmpty { resume(resumed, into: &out) }
    }

    /// The task of queued node `key` as it was published: its stored attempt, phase and input (held,
    /// or built again: `currentInput`), or why its input cannot be built again.
    private func redispatch(_ key: String) -> Result<TaskDispatch, InputRebuildFailure> {
        let node = nodes[key]!
        return currentInput(key).map { input in
            dispatch(for: key, attempt: node.attempt, input: input, phase: node.phase, previousOutput: node.runs > 0 ? output(of: key, node) : nil)
        }
    }

    /// The tasks of those of `keys` whose node is still queued at `attempts[key]`, published again
    /// under the same attempt, as the recovery on start does (`start`): the broker lost them (their
    /// queue was deleted or purged, or a publish came back unroutable). The attempt number makes a
    /// duplicate harmless. Changes nothing in the run, unless a node's input cannot be built again
    /// (an output it injects is gone): that node fails, alone, with the reason, and the run goes on.
    public mutating func republishQueued(
        _ attempts: [String: Int], at now: Date = Date(), random: @escaping () -> Double = { Double.random(in: 0..<1) },
        tokens: (() -> AttemptToken)? = nil
    ) -> [SchedulerCommand] {
        guard !status.isTerminal else { return [] }
        var out = Commands(now: now, random: random, tokens: tokens)
        var unblocked: [String] = []
        var failed = false
        for key in attempts.keys.sorted() {
            guard let node = nodes[key], node.status == .queued, node.attempt == attempts[key] else { continue }
            switch redispatch(key) {
            case let .success(task): out.append(.dispatch(task))
            case let .failure(failure):
                failed = true
                unblocked += end(key, as: .failed, error: failure.description, into: &out)
            }
        }
        guard failed else { return out.list }
        evaluate(unblocked, into: &out)
        releaseReady(into: &out)
        finishIfDone(into: &out)
        return out.list
    }

    /// The nodes queued now, each with its attempt and the pool and procedure of its task's queue.
    public var queuedTasks: [(key: String, attempt: Int, pool: String, procedure: String)] {
        nodes.compactMap { key, node in
            guard node.status == .queued, let spec = graph.nodes[key] else { return nil }
            let procedure = node.phase == .condition ? spec.policies.condition?.procedure ?? spec.procedure : spec.procedure
            return (key, node.attempt, spec.pool, procedure)
        }
    }

    /// A worker began an attempt. The attempt already running on another worker was delivered
    /// again (the worker that had it stopped before it reported): that is recorded as a
    /// `redelivered` event naming the lost worker, then a `started` event for the new one, whose
    /// attempt it now is (so the lost worker's lease running out takes nothing from it).
    mutating func started(_ key: String, attempt: Int, worker: String, at: Date, into out: inout Commands) {
        guard var node = nodes[key], node.attempt == attempt else { return }
        if redelivered(key, node, to: worker, into: &out) { node.status = .queued }  // started again below, on the new worker
        guard node.status == .queued else { return }
        node.status = .running
        node.worker = intern(worker)
        if node.phase == .run, let timeout = graph.nodes[key]!.policies.timeout {
            node.deadline = at.addingTimeInterval(timeout + Self.timeoutGrace(timeout))
        }
        set(
            key, node,
            NodeChange(
                key: key, status: .running, attempt: attempt, worker: worker, startedAt: at,
                event: node.phase == .condition ? .conditionStarted : nil), into: &out)
    }

    /// Records that the attempt `node` runs on one worker reached another (`worker`): the broker
    /// delivered it again (the first stopped, or lost its connection, before it reported). Returns
    /// false when it did not.
    mutating func redelivered(_ key: String, _ node: NodeState, to worker: String, into out: inout Commands) -> Bool {
        guard node.status == .running, children[key] == nil, let lost = node.worker, lost != worker else { return false }
        out.append(
            .event(
                key: key, kind: .redelivered,
                detail: [
                    "attempt": .int(Int64(node.attempt)), "worker": .string(lost), "to": .string(worker),
                    "message": .string("attempt \(node.attempt) was delivered again, to \(worker); \(lost) had it and did not report its result"),
                ]))
        return true
    }

    /// Decides each node whose dependencies have all ended, and everything that follows from it.
    mutating func evaluate(_ keys: [String], into out: inout Commands) {
        var work = keys
        var next = 0
        while next < work.count {
            let key = work[next]
            next += 1
            guard nodes[key]!.status == .pending else { continue }
            let policies = graph.nodes[key]!.policies
            let deps = graph.nodes[key]!.dependencies
            let blocker = deps.first { d in
                let s = nodes[d]!.status
                return s == .cancelled || (s == .failed && graph.nodes[d]!.policies.onFailure == .fail)
            }
            let skipped = deps.first { nodes[$0]!.status == .skipped }
            switch policies.dependencies {
            case .allSucceeded, .noneFailed:
                if let blocker {
                    let verb = nodes[blocker]!.status == .failed ? "failed" : "was cancelled"
                    work += end(key, as: .cancelled, error: "dependency '\(blocker)' \(verb)", into: &out)
                    continue
                }
                if policies.dependencies == .allSucceeded, let skipped {
                    work += end(key, as: .skipped, error: "dependency '\(skipped)' was skipped", into: &out)
                    continue
                }
            case .allFinished:
                break
            }
            if let when = policies.when {
                let value: JSON
                do { value = try when.resolve { visibleOutput($0) } } catch {
                    work += end(key, as: .failed, error: "when: \(error.description)", into: &out)
                    continue
                }
                if value != true {
                    work += end(key, as: .skipped, error: "when is \(value.serialized()), not true", into: &out)
                    continue
                }
            }
            if holdForWindow(key) { continue }
            if policies.condition != nil {
                work += beginCondition(key, into: &out)
                continue
            }
            work += beginRun(key, newAttempt: true, into: &out)
        }
    }

    /// Queues the node's condition as a new attempt. Returns nodes unblocked if its input cannot be resolved (the node fails).
    mutating func beginCondition(_ key: String, into out: inout Commands) -> [String] {
        let input: JSON
        let template = graph.nodes[key]!.policies.condition!.input
        do { input = try template.resolve { visibleOutput($0) } } catch {
            return end(key, as: .failed, error: "condition: \(error.description)", into: &out)
        }
        if let problem = oversizedInput(input, template: template) { return end(key, as: .failed, error: "condition: \(problem)", into: &out) }
        if !pauses.isEmpty, let why = pauseReason(key, phase: .condition) {
            return holdPaused(key, why, phase: .condition, newAttempt: true, into: &out)
        }
        var node = nodes[key]!
        node.status = .queued
        node.attempt += 1
        node.phase = .condition
        node.error = nil
        node.worker = nil
        node.deadline = nil
        node.attemptToken = out.tokens?()
        var change = NodeChange(key: key, status: .queued, attempt: node.attempt, event: .conditionQueued)
        change.attemptToken = node.attemptToken
        set(key, node, change, into: &out)
        out.append(.dispatch(dispatch(for: key, attempt: node.attempt, input: input, phase: .condition)))
        return []
    }

    /// Queues the node's procedure (or arms its delay). Returns nodes unblocked if it ended at once.
    mutating func beginRun(_ key: String, newAttempt: Bool, into out: inout Commands) -> [String] {
        let definition = graph.nodes[key]!
        if children[key] != nil {
            // Runs again from scratch (a retry): what it added last time goes. A change of the node follows.
            prune(key, into: &out)
        }
        switch definition.kind {
        case let .group(spec): return startGroup(key, spec, into: &out)
        case let .map(spec): return startMap(key, spec, into: &out)
        case .signal: return awaitSignal(key, newAttempt: newAttempt, into: &out)
        case .procedure: break
        }
        var node = nodes[key]!
        let input: JSON
        let again = node.runs > 0 || node.failures > 0
        if let resolved = node.input, again {
            input = resolved  // retries and repeats run with the input the first attempt had
        } else {
            // Resolved, or built again as the first attempt's (its dependencies have not changed) when
            // it is no longer held (`dropsInputs`).
            do { input = try resolveInput(definition.input) } catch {
                let message = again ? "the input of attempt \(node.attempt + 1) cannot be built again: \(error)" : "\(error)"
                return end(key, as: .failed, error: message, into: &out)
            }
            if let problem = oversizedInput(input, template: definition.input) { return end(key, as: .failed, error: problem, into: &out) }
        }
        if !pauses.isEmpty, definition.procedure != DelayProcedure.name, let why = pauseReason(key, phase: .run) {
            return holdPaused(key, why, phase: .run, newAttempt: newAttempt, into: &out)
        }
        if definition.policies.needsAdmission && node.admission != .held {
            return requestAdmission(key, node, input: input, newAttempt: newAttempt, into: &out)
        }
        if newAttempt { node.attempt += 1 }
        node.phase = .run
        node.input = input
        node.error = nil
        node.deadline = nil
        if definition.procedure == DelayProcedure.name {
            switch DelayProcedure.dueDate(from: input, now: out.now) {
            case let .success(until):
                // An `until` already past fires on the next tick: its due time, which becomes the node's
                // started_at, is now, or the node would seem to have taken since `until` (decades, for 1970).
                let due = max(until, out.now)
                node.status = .waiting
                node.waitingFor = .delay
                node.dueAt = due
                set(key, node, NodeChange(key: key, status: .waiting, attempt: node.attempt, input: input, event: .delay, dueAt: due), into: &out)
                return []
            case let .failure(failure):
                nodes[key] = node
                return end(key, as: .failed, error: failure.message, into: &out)
            }
        }
        node.status = .queued
        node.dueAt = nil
        node.waitingFor = nil
        node.attemptToken = out.tokens?()
        var change = NodeChange(key: key, status: .queued, attempt: node.attempt, input: input)
        change.attemptToken = node.attemptToken
        change.reset = node.runs == 0 && node.failures == 0
        set(key, node, change, into: &out)
        out.append(.dispatch(dispatch(for: key, attempt: node.attempt, input: input, previousOutput: node.runs > 0 ? output(of: key, node) : nil)))
        return []
    }

    /// Puts the node in `waiting` for admission and asks for its mutexes, concurrency slot, rate token
    /// and cache lookup (event `awaiting_rate` when it has a rate, else `awaiting_admission`). Returns
    /// nodes unblocked if its concurrency or rate key cannot be used (the node fails).
    private mutating func requestAdmission(_ key: String, _ state: NodeState, input: JSON, newAttempt: Bool, into out: inout Commands) -> [String] {
        let definition = graph.nodes[key]!
        var claims = (definition.policies.mutex ?? []).map(AdmissionClaim.mutex)
        if let concurrency = definition.policies.concurrency {
            let text: Result<String, AdmissionKeyError>
            do { text = ConcurrencyPolicy.keyText(try concurrency.key.resolve { visibleOutput($0) }) } catch {
                return end(key, as: .failed, error: "concurrency/key: \(error.description)", into: &out)
            }
            switch text {
            case let .success(k): claims.append(.concurrency(k, limit: concurrency.limit))
            case let .failure(e): return end(key, as: .failed, error: e.description, into: &out)
            }
        }
        if let rate = definition.policies.rate {
            let text: Result<String, AdmissionKeyError>
            do { text = RatePolicy.keyText(try rate.key.resolve { visibleOutput($0) }) } catch {
                return end(key, as: .failed, error: "rate/key: \(error.description)", into: &out)
            }
            switch text {
            case let .success(k): claims.append(.rate(k, limit: rate.limit, per: rate.per))
            case let .failure(e): return end(key, as: .failed, error: e.description, into: &out)
            }
        }
        if let fair = definition.policies.fair {
            let text: Result<String, AdmissionKeyError>
            do { text = FairPolicy.keyText(try fair.key.resolve { visibleOutput($0) }) } catch {
                return end(key, as: .failed, error: "fair/key: \(error.description)", into: &out)
            }
            switch text {
            case let .success(k): claims.append(.share(pool: definition.pool, procedure: definition.procedure, key: k, weight: fair.weight))
            case let .failure(e): return end(key, as: .failed, error: e.description, into: &out)
            }
        }
        let lookup = cacheLookup(key, input: input)
        if let lookup { claims.append(lookup.claim) }
        var node = state
        node.status = .waiting
        node.waitingFor = .admission
        node.input = input
        node.error = nil
        node.dueAt = nil
        node.deadline = nil
        node.admission = .requested
        node.admissionNewAttempt = newAttempt
        var change = NodeChange(key: key, status: .waiting, attempt: node.attempt, input: input, event: .awaitingAdmission)
        if let rate = definition.policies.rate, let claim = claims.first(where: { $0.per != nil }), let name = claim.rateKey {
            change.event = .awaitingRate
            change.detail = JSONObject([("rate", .string(name)), ("limit", .int(Int64(rate.limit))), ("per", .string(DurationText.format(rate.per)))])
        } else if let fair = definition.policies.fair, let claim = claims.first(where: \.isShare), let name = claim.shareKey {
            change.event = .awaitingShare
            change.detail = JSONObject([("fair", .string(name)), ("weight", .int(Int64(fair.weight)))])
        }
        set(key, node, change, into: &out)
        out.append(.acquire(AdmissionRequest(key: key, claims: claims, cache: lookup, priority: definition.priority)))
        return []
    }

    /// What a node with `cache` looks up before it runs, and stores once it succeeded: its procedure
    /// and canonical input.
    func cacheLookup(_ key: String, input: JSON) -> CacheLookup? {
        let definition = graph.nodes[key]!
        guard let cache = definition.policies.cache else { return nil }
        return CacheLookup(procedure: definition.procedure, input: CanonicalJSON.text(input), ttl: cache.ttl)
    }

    /// The node's request was granted: it is queued now. A grant nobody waits for is given back.
    mutating func admitted(_ key: String, into out: inout Commands) {
        guard var node = nodes[key] else { return }
        guard node.status == .waiting, node.waitingFor == .admission, node.admission == .requested else {
            if node.admission == .none { out.append(.release(key: key)) }
            return
        }
        node.admission = .held
        nodes[key] = node
        out.append(.event(key: key, kind: .admitted, detail: ["attempt": .int(Int64(node.attempt + (node.admissionNewAttempt ? 1 : 0)))]))
        evaluate(beginRun(key, newAttempt: node.admissionNewAttempt, into: &out), into: &out)
    }

    /// The node's cache lookup found an output: it succeeds with it, without running.
    mutating func cached(_ key: String, hit: CacheHit, into out: inout Commands) {
        guard var node = nodes[key], node.status == .waiting, node.waitingFor == .admission, node.admission != .none else { return }
        out.append(.event(key: key, kind: .cached, detail: ["source_run": .string(hit.sourceRun), "source_node": .string(hit.sourceNode)]))
        node.output = hit.output
        nodes[key] = node
        evaluate(end(key, as: .succeeded, output: hit.output, into: &out), into: &out)
    }

    /// Ends a node (for good) and returns the dependents it unblocks.
    @discardableResult
    mutating func end(
        _ key: String, as status: NodeStatus, error: String? = nil, output: JSON? = nil, worker: String? = nil,
        startedAt: Date? = nil, finishedAt: Date? = nil, event: EventKind? = nil, into out: inout Commands
    ) -> [String] {
        var node = nodes[key]!
        node.status = status
        node.error = error
        if let output { node.output = output }
        if let worker { node.worker = intern(worker) }
        node.dueAt = nil
        node.deadline = nil
        node.waitingFor = nil
        set(
            key, node,
            NodeChange(
                key: key, status: status, attempt: node.attempt, output: output, error: error, worker: node.worker,
                startedAt: startedAt, finishedAt: finishedAt, event: event), into: &out)
        let free = unblocked(by: key)
        guard let parent = Self.parent(of: key) else { return free }
        return free + childEnded(parent, key, into: &out)
    }

    /// Counts `key` as ended for its dependents and returns those now free to decide.
    mutating func unblocked(by key: String) -> [String] {
        remaining -= 1
        var free: [String] = []
        for dependent in nodes[key]!.dependents {
            nodes[dependent]!.openDependencies -= 1
            if nodes[dependent]!.openDependencies == 0 { free.append(dependent) }
        }
        return free
    }

    /// Why `input`, resolved from `template`, may not be dispatched: more bytes than `maxInputBytes`
    /// once the outputs it injects are in; the message names the limit and the nodes injected, largest first.
    /// Cheap for inputs far below the limit (an estimate first; serialized only near it).
    func oversizedInput(_ input: JSON, template: Template) -> String? {
        guard input.estimatedBytes > maxInputBytes / 2 else { return nil }
        let size = input.serializedBytes().count
        guard size > maxInputBytes else { return nil }
        var seen = Set<String>()
        var injected: [(key: String, bytes: Int)] = []
        for reference in template.references where seen.insert(reference.node).inserted {
            injected.append((reference.node, visibleOutput(reference.node)?.estimatedBytes ?? 0))
        }
        injected.sort { $0.bytes > $1.bytes }
        var names = injected.prefix(10).map { "'\($0.key)' (about \($0.bytes) bytes)" }.joined(separator: ", ")
        if injected.count > 10 { names += " and \(injected.count - 10) more" }
        let from = injected.isEmpty ? "" : "; it injects the outputs of \(injected.count) node(s): \(names)"
        return "input is \(size) bytes after injection, more than the limit of \(maxInputBytes) (BATON_MAX_INPUT_BYTES)\(from)"
    }
}
