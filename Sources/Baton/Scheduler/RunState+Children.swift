import Foundation

/// Groups, maps and spawning nodes: a node whose children are added to the run when it starts
/// (or, for a spawning procedure, when it returns a graph), and which ends when they have.
extension RunState {
    /// The key of the group, map or spawning node that `key` is a child of, if any.
    public static func parent(of key: String) -> String? {
        key.lastIndex(of: "/").map { String(key[..<$0]) }
    }

    /// Adds a fragment's nodes to the state (pending), with no commands: used when expanding and, keeping
    /// the states already stored for them, when loading.
    mutating func addChildren(of parent: String, _ fragment: GroupSpec, keepingStored: Bool = false) {
        children[parent] = fragment.order
        fragments[parent] = fragment
        outstanding.remove(parent)  // a node running what it spawned holds no task
        graph.order.reserveCapacity(graph.order.count + fragment.order.count)
        let base = nodes[parent]?.childAttemptBase ?? 0
        for key in fragment.order {
            let node = fragment.nodes[key]!
            graph.nodes[key] = node
            graph.order.append(key)
            if !keepingStored || nodes[key] == nil {
                var state = NodeState(attempt: base)
                state.childAttemptBase = base
                nodes[key] = state
            }
        }
        // Once every child has its state: a child may wait for a sibling listed after it.
        for key in fragment.order {
            for dependency in fragment.nodes[key]!.dependencies { nodes[dependency]?.dependents.append(key) }
        }
    }

    /// Starts a group: the node runs (its `timeout` covers the whole group) and its children are added.
    mutating func startGroup(_ key: String, _ spec: GroupSpec, into out: inout Commands) -> [String] {
        markStarted(key, deadline: graph.nodes[key]!.policies.timeout.map { out.now.addingTimeInterval($0) }, into: &out)
        return expand(key, spec, into: &out)
    }

    /// Starts a map: one child per element of the array `over` yields; the map's retry and timeout apply to each child,
    /// and its `rate` with `$item` and `$index` in the key standing for the child's element.
    mutating func startMap(_ key: String, _ spec: MapSpec, into out: inout Commands) -> [String] {
        let definition = graph.nodes[key]!
        let value: JSON
        do { value = try spec.over.resolve { visibleOutput($0) } } catch {
            return end(key, as: .failed, error: "map over: \(error.description)", into: &out)
        }
        guard case let .array(items) = value else {
            return end(key, as: .failed, error: "map over must be an array, found \(value.kindName): \(value.serialized().prefix(200))", into: &out)
        }
        if graph.order.count + items.count > limits.maxNodes {
            return end(
                key, as: .failed,
                error: "map over \(items.count) elements would make \(graph.order.count + items.count) nodes, "
                    + "more than the limit of \(limits.maxNodes) (BATON_MAX_NODES)", into: &out)
        }
        var policies = NodePolicies()
        policies.retry = definition.policies.retry
        policies.timeout = definition.policies.timeout
        var order: [String] = []
        var nodes: [String: GraphNode] = [:]
        order.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let child = "\(key)/\(index)"
            let input: Template
            do { input = try spec.input.substituting(item: item, index: index) } catch {
                return end(key, as: .failed, error: "map input: \(error.description)", into: &out)
            }
            var own = policies
            if let rate = spec.rate {
                do { own.rate = RatePolicy(key: try rate.key.substituting(item: item, index: index), limit: rate.limit, per: rate.per) } catch {
                    return end(key, as: .failed, error: "map rate/key: \(error.description)", into: &out)
                }
            }
            if let fair = spec.fair {
                do { own.fair = FairPolicy(key: try fair.key.substituting(item: item, index: index), weight: fair.weight) } catch {
                    return end(key, as: .failed, error: "map fair/key: \(error.description)", into: &out)
                }
            }
            order.append(child)
            nodes[child] = GraphNode(
                key: child, procedure: definition.procedure, input: input, pool: definition.pool, priority: definition.priority, policies: own)
        }
        markStarted(key, deadline: nil, into: &out)
        return expand(key, GroupSpec(order: order, nodes: nodes, output: nil), into: &out)
    }

    /// A procedure returned a graph to run in its place: it is validated like a submitted graph, and
    /// the node ends when the graph has. An invalid graph fails the node, listing every problem.
    mutating func spawn(_ key: String, document: JSON, result: NodeResult, into out: inout Commands) {
        let fragment: GroupSpec
        do {
            fragment = try GraphDecoder(limits: limits).decodeFragment(document, parent: key, pool: graph.nodes[key]!.pool)
        } catch {
            let problems = error.problems.map(\.description).joined(separator: "; ")
            failAttempt(
                key, message: "spawned an invalid graph (\(error.problems.count) problem\(error.problems.count == 1 ? "" : "s")): \(problems)",
                permanent: true, event: nil, startedAt: result.startedAt, finishedAt: result.finishedAt, into: &out)
            return
        }
        let total = graph.order.count + fragment.staticNodes.count
        if total > limits.maxNodes {
            failAttempt(
                key,
                message: "spawned \(total - graph.order.count) nodes, making \(total), more than the limit of \(limits.maxNodes) (BATON_MAX_NODES)",
                permanent: true, event: nil, startedAt: result.startedAt, finishedAt: result.finishedAt, into: &out)
            return
        }
        var node = nodes[key]!
        node.deadline = nil  // the attempt is over; what it spawned runs under its own policies
        giveBackAdmission(&node, key, into: &out)  // and so is its mutex: a child may need the same one
        set(
            key, node,
            NodeChange(key: key, status: .running, attempt: node.attempt, worker: node.worker, startedAt: result.startedAt, event: .spawned),
            into: &out)
        evaluate(expand(key, fragment, into: &out), into: &out)
    }

    private mutating func markStarted(_ key: String, deadline: Date?, into out: inout Commands) {
        var node = nodes[key]!
        let fresh = node.runs == 0 && node.failures == 0
        node.attempt += 1
        node.status = .running
        node.phase = .run
        node.error = nil
        node.worker = nil
        node.dueAt = nil
        node.waitingFor = nil
        node.deadline = deadline
        var change = NodeChange(key: key, status: .running, attempt: node.attempt, startedAt: out.now)
        change.reset = fresh
        set(key, node, change, into: &out)
    }

    /// Adds the children and returns those that may be decided now.
    private mutating func expand(_ parent: String, _ fragment: GroupSpec, into out: inout Commands) -> [String] {
        let position = graph.order.count
        addChildren(of: parent, fragment)
        out.append(.expand(parent: parent, fragment: fragment, position: position))
        remaining += fragment.order.count
        for key in fragment.order {
            nodes[key]!.openDependencies = graph.nodes[key]!.dependencies.reduce(0) { $0 + (nodes[$1]?.status.isTerminal ?? true ? 0 : 1) }
        }
        if case let .map(spec) = graph.nodes[parent]!.kind, let bound = spec.concurrency, fragment.order.count > bound {
            let held = Array(fragment.order.dropFirst(bound))
            for key in held { nodes[key]!.openDependencies += 1 }
            heldBack[parent] = held
        }
        if fragment.order.isEmpty { return finish(parent, into: &out) }
        return fragment.order.filter { nodes[$0]!.openDependencies == 0 }
    }

    /// A child ended: lets the next held-back map child go, and ends the parent when it is decided.
    mutating func childEnded(_ parent: String, _ child: String, into out: inout Commands) -> [String] {
        guard let keys = children[parent], nodes[parent]?.status == .running else { return [] }
        var free: [String] = []
        if var held = heldBack[parent], !held.isEmpty {
            let next = held.removeFirst()
            heldBack[parent] = held
            nodes[next]!.openDependencies -= 1
            if nodes[next]!.openDependencies == 0 { free.append(next) }
        }
        let ended = nodes[child]!
        if case let .map(spec) = graph.nodes[parent]!.kind, spec.failure == .failFast, ended.status == .failed || ended.status == .cancelled {
            let index = child[child.index(after: child.lastIndex(of: "/")!)...]
            let verb = ended.status == .failed ? "failed" : "was cancelled"
            fail(parent, message: "element \(index) \(verb): \(ended.error ?? "unknown error")", into: &out)
            return free
        }
        guard keys.allSatisfy({ nodes[$0]!.status.isTerminal }) else { return free }
        return free + finish(parent, into: &out)
    }

    /// On resume: a parent still running whose children all ended (or, for a map that fails fast, one
    /// of which failed) is decided now. A commit cut into pieces can store a child's end and lose the
    /// next piece, which ended its parent, to a crash or a lost partition in between.
    mutating func resumeParent(_ parent: String, into out: inout Commands) -> [String] {
        guard let keys = children[parent], !keys.isEmpty, nodes[parent]?.status == .running else { return [] }
        if case let .map(spec) = graph.nodes[parent]!.kind, spec.failure == .failFast,
            let bad = keys.first(where: { nodes[$0]!.status == .failed || nodes[$0]!.status == .cancelled })
        {
            return childEnded(parent, bad, into: &out)
        }
        guard keys.allSatisfy({ nodes[$0]!.status.isTerminal }) else { return [] }
        return finish(parent, into: &out)
    }

    /// Every child has ended: the parent succeeds with its output, or fails.
    private mutating func finish(_ parent: String, into out: inout Commands) -> [String] {
        let keys = children[parent] ?? []
        if case let .map(spec) = graph.nodes[parent]!.kind {
            let output: [JSON] = keys.map { key in
                let node = nodes[key]!
                guard spec.failure == .collect else { return self.output(of: key, node) ?? .null }
                if node.status == .succeeded { return ["ok": self.output(of: key, node) ?? .null] }
                return ["error": .string(node.error ?? node.status.rawValue)]
            }
            return end(parent, as: .succeeded, output: .array(output), into: &out)
        }
        if let bad = keys.first(where: {
            nodes[$0]!.status == .cancelled || (nodes[$0]!.status == .failed && graph.nodes[$0]!.policies.onFailure == .fail)
        }) {
            let verb = nodes[bad]!.status == .failed ? "failed" : "was cancelled"
            fail(parent, message: "node '\(bad)' \(verb): \(nodes[bad]!.error ?? "unknown error")", into: &out)
            return []
        }
        let output: JSON
        if let template = fragments[parent]?.output {
            do { output = try template.resolve { visibleOutput($0) } } catch {
                fail(parent, message: "output: \(error.description)", into: &out)
                return []
            }
        } else {
            let prefix = parent.count + 1
            output = .object(JSONObject(keys.map { (String($0.dropFirst(prefix)), visibleOutput($0) ?? .null) }))
        }
        return end(parent, as: .succeeded, output: output, into: &out)
    }

    /// The parent fails (a group or spawning node is retried whole if its `retry` allows; a map's
    /// retry belongs to its children) and what is left of its children is cancelled.
    mutating func fail(_ parent: String, message: String, event: EventKind? = nil, into out: inout Commands) {
        let isMap: Bool
        if case .map = graph.nodes[parent]!.kind { isMap = true } else { isMap = false }
        failAttempt(parent, message: message, permanent: isMap, event: event, into: &out)
        cancelChildren(of: parent, reason: "\(parent) ended: \(message)", into: &out)
    }

    /// Cancels every child (at any depth) that has not ended, signalling the attempts that run.
    mutating func cancelChildren(of parent: String, reason: String, into out: inout Commands) {
        var signalled: [TaskRef] = []
        var work = children[parent] ?? []
        while let key = work.popLast() {
            let node = nodes[key]!
            guard !node.status.isTerminal else { continue }
            if node.status == .queued || node.status == .running { signalled.append(TaskRef(key: key, attempt: node.attempt)) }
            _ = end(key, as: .cancelled, error: reason, into: &out)  // its dependents are siblings, cancelled here too
            work += children[key] ?? []
        }
        if !signalled.isEmpty { out.append(.cancelTasks(runID: runID, attempts: signalled)) }
    }

    /// Removes a node's children (at any depth) before it runs again from scratch.
    mutating func prune(_ parent: String, into out: inout Commands) {
        guard children[parent] != nil else { return }
        var doomed: [String] = []
        var work = [parent]
        while let key = work.popLast() {
            let keys = children[key] ?? []
            doomed += keys
            work += keys
            children[key] = nil
            fragments[key] = nil
            heldBack[key] = nil
        }
        let gone = Set(doomed)
        let reached = doomed.reduce(0) { max($0, nodes[$1]!.attempt, nodes[$1]!.childAttemptBase) }
        nodes[parent]!.childAttemptBase = max(nodes[parent]!.childAttemptBase, reached)
        for key in doomed {
            if !nodes[key]!.status.isTerminal { remaining -= 1 }
            if nodes[key]!.admission != .none { out.append(.release(key: key)) }  // what it held or waited for goes back
            for dependency in graph.nodes[key]!.dependencies where !gone.contains(dependency) {
                nodes[dependency]?.dependents.removeAll { $0 == key }
            }
            nodes[key] = nil
            outstanding.remove(key)
            graph.nodes[key] = nil
            timers.set(key, at: nil)
        }
        graph.order.removeAll { gone.contains($0) }
        out.append(.prune(parent: parent))
    }
}
