import Foundation

/// Pausing (`baton pause`): a node whose task would go out while its run, pool or procedure is
/// paused waits instead (`waiting_for: paused`, event `paused`), holding no admission and no worker
/// slot; tasks already out go on. When the pause ends the node goes on where it stopped, in order
/// (priority, then the graph's order).
extension RunState {
    /// Sets what is paused and starts the nodes held by a pause that ended. A run that is ended, or
    /// whose pauses only grew, changes nothing.
    public mutating func setPauses(
        _ pauses: Pauses, at now: Date = Date(), random: @escaping () -> Double = { Double.random(in: 0..<1) },
        tokens: (() -> AttemptToken)? = nil
    ) -> [SchedulerCommand] {
        let before = self.pauses
        self.pauses = pauses
        guard !status.isTerminal, status != .pending, !before.isEmpty, before != pauses else { return [] }
        let ended =
            !before.runs.isSubset(of: pauses.runs) || !before.pools.isSubset(of: pauses.pools)
            || !before.procedures.isSubset(of: pauses.procedures)
        guard ended else { return [] }
        var out = Commands(now: now, random: random, tokens: tokens)
        let held = graph.order.filter { nodes[$0]!.status == .waiting && nodes[$0]!.waitingFor == .paused }
        if !held.isEmpty { resume(held, into: &out) }
        releaseReady(into: &out)
        finishIfDone(into: &out)
        return out.list
    }

    /// The nodes held by a pause, now.
    public var pausedNodes: Int { nodes.values.reduce(0) { $0 + ($1.status == .waiting && $1.waitingFor == .paused ? 1 : 0) } }

    /// Why `key`'s task of `phase` may not go out now, or nil.
    func pauseReason(_ key: String, phase: TaskPhase) -> PauseTarget? {
        guard !pauses.isEmpty, let spec = graph.nodes[key] else { return nil }
        let procedure = phase == .condition ? spec.policies.condition?.procedure ?? spec.procedure : spec.procedure
        return pauses.reason(run: runID, pool: spec.pool, procedure: procedure)
    }

    /// Holds `key` back instead of queueing its task of `phase`: it waits for `why` to end, giving
    /// back any admission it held (it asks again on resume). Returns no unblocked node.
    mutating func holdPaused(_ key: String, _ why: PauseTarget, phase: TaskPhase, newAttempt: Bool, into out: inout Commands) -> [String] {
        var node = nodes[key]!
        if node.admission != .none {
            node.admission = .none
            out.append(.release(key: key))
        }
        node.status = .waiting
        node.waitingFor = .paused
        node.phase = phase
        node.admissionNewAttempt = newAttempt  // how it goes on: a new attempt, or the one its condition began
        node.dueAt = nil
        node.deadline = nil
        var change = NodeChange(key: key, status: .waiting, attempt: node.attempt, event: .paused)
        change.detail = JSONObject([
            ("paused", .string(why.kind.rawValue)), ("name", .string(why.name)),
            ("message", .string("\(why) is paused; `baton resume \(why.kind.rawValue) \(why.name)` lets it go on")),
        ])
        set(key, node, change, into: &out)
        return []
    }

    /// Goes on with those of `keys` held by a pause that no longer holds them: higher priority first,
    /// then in the order given (the graph's).
    mutating func resume(_ keys: [String], into out: inout Commands) {
        let free = keys.enumerated().filter { pauseReason($0.element, phase: nodes[$0.element]!.phase) == nil }
        let ordered = free.sorted { a, b in
            let pa = graph.nodes[a.element]!.priority
            let pb = graph.nodes[b.element]!.priority
            return pa != pb ? pa > pb : a.offset < b.offset
        }
        for (_, key) in ordered {
            let node = nodes[key]!
            guard node.status == .waiting, node.waitingFor == .paused else { continue }
            if node.phase == .condition {
                evaluate(beginCondition(key, into: &out), into: &out)
            } else {
                evaluate(beginRun(key, newAttempt: node.admissionNewAttempt, into: &out), into: &out)
            }
        }
    }
}
