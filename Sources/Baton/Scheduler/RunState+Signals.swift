import Foundation

/// Signal nodes: a node of kind `signal` waits (`waiting`, `.signal`), holding no worker slot and
/// dispatching nothing, until `.signal` brings a value, which becomes its output. A `timeout` fails
/// the wait like any attempt's (`timed_out`, then its retry rule: a retry waits again). A signal that
/// comes before the node waits (it is pending, or waits for a retry's back-off) is kept in its
/// bookkeeping and consumed when it does; so is one that comes while the run is cancelled and later
/// retried. A signal for a node that ended, that already has one, or that is no signal is ignored
/// (the store refuses those before they reach the scheduler; this covers races with a timeout).
extension RunState {
    /// Starts the node's wait for a signal, or ends it at once with a kept one. Returns nodes unblocked.
    mutating func awaitSignal(_ key: String, newAttempt: Bool, into out: inout Commands) -> [String] {
        var node = nodes[key]!
        if newAttempt { node.attempt += 1 }
        node.phase = .run
        node.error = nil
        node.dueAt = nil
        node.deadline = nil
        if let kept = node.keptSignal {
            node.keptSignal = nil
            node.output = kept.value
            nodes[key] = node
            return end(key, as: .succeeded, output: kept.value, startedAt: out.now, finishedAt: out.now, into: &out)
        }
        node.status = .waiting
        node.waitingFor = .signal
        if let timeout = graph.nodes[key]!.policies.timeout { node.deadline = out.now.addingTimeInterval(timeout) }
        set(key, node, NodeChange(key: key, status: .waiting, attempt: node.attempt, startedAt: out.now, event: .awaitingSignal), into: &out)
        return []
    }

    /// A signal for `key`, sent at `at`: the waiting node succeeds with `value`; one that does not wait yet keeps it.
    mutating func signalled(_ key: String, value: JSON, at: Date, into out: inout Commands) {
        guard var node = nodes[key], case .signal = graph.nodes[key]!.kind else { return }
        guard !node.status.isTerminal, node.keptSignal == nil else {
            let why = node.keptSignal != nil ? "the node already has a signal" : "the node had already \(node.status.rawValue)"
            out.append(.event(key: key, kind: .signalIgnored, detail: ["message": .string("a signal came but was not used: \(why)")]))
            return
        }
        if node.status == .waiting, node.waitingFor == .signal {
            node.output = value
            nodes[key] = node
            evaluate(end(key, as: .succeeded, output: value, finishedAt: out.now, into: &out), into: &out)
            return
        }
        node.keptSignal = KeptSignal(value: value, sentAt: at)
        set(key, node, NodeChange(key: key, status: node.status, attempt: node.attempt, error: node.error, event: .signalKept), into: &out)
    }

    /// The node waited for a signal longer than its `timeout`: the attempt fails, and its retry rule applies.
    mutating func signalTimedOut(_ key: String, into out: inout Commands) {
        guard case let .signal(spec) = graph.nodes[key]!.kind else { return }
        let timeout = graph.nodes[key]!.policies.timeout ?? 0
        failAttempt(
            key, message: "timed out: no signal '\(spec.name)' within \(DurationText.format(timeout))", permanent: false, event: .timedOut,
            into: &out)
    }
}
