/// The dispatch window: at most `dispatchWindow` of a run's nodes have a task out (queued, or running
/// on a worker) at once, with at most about `dispatchWindowBytes` of inputs. Further nodes that become ready stay `pending` in a `ReadyQueue` and go out
/// as others end, so a 100,000-node fan-out neither builds 100,000 tasks in one batch nor puts them on
/// the broker at once. Retries, resumed tasks and a lost worker's tasks are not held back (the window
/// can be exceeded by those); groups, maps and delays hold no task and never wait for it.
extension RunState {
    /// The default bound on a run's nodes with a task out.
    public static let defaultDispatchWindow = 10_000
    /// The default bound on the bytes of the inputs of a run's tasks out.
    public static let defaultDispatchWindowBytes = 64 << 20

    /// Whether the window is full: as many tasks out as it allows, or as many bytes of inputs.
    var windowFull: Bool { outstanding.count >= dispatchWindow || (outstanding.count > 0 && outstanding.bytes >= dispatchWindowBytes) }

    /// Whether `key`, in `state`, has a task out: a procedure (or its condition) queued or running,
    /// not one that is running what it spawned. A node held back by a pause counts too (it would have
    /// one but for the pause), so a paused run holds at most a window of nodes `paused`, not every ready one.
    func hasTask(_ key: String, _ state: NodeState) -> Bool {
        let out = state.status == .queued || state.status == .running || (state.status == .waiting && state.waitingFor == .paused)
        guard out, children[key] == nil, let node = graph.nodes[key] else { return false }
        if case .procedure = node.kind { return true }
        return false
    }

    /// Keeps `outstanding` in step with a node's new state.
    mutating func trackTask(_ key: String, _ state: NodeState) {
        if hasTask(key, state) { outstanding.insert(key, bytes: state.input?.estimatedBytes) } else { outstanding.remove(key) }
    }

    /// Whether starting `key` now would put one task too many out: it then waits in `ready`.
    mutating func holdForWindow(_ key: String) -> Bool {
        guard windowFull else { return false }
        let node = graph.nodes[key]!
        guard case .procedure = node.kind, node.procedure != DelayProcedure.name || node.policies.condition != nil else { return false }
        ready.push(key, priority: node.priority)
        return true
    }

    /// Starts held nodes while the window has room.
    mutating func releaseReady(into out: inout Commands) {
        while !windowFull, let key = ready.pop() {
            // A node pruned (and perhaps added again) since it was held, or cancelled, is not this one.
            guard let node = nodes[key], node.status == .pending, node.openDependencies == 0 else { continue }
            evaluate([key], into: &out)
        }
    }
}
