import Baton
import Foundation
import Testing

// Helpers for the control-flow (policy) tests: condition results, stored-state
// round trips, and problem lookups.

/// The harness clock's starting point (see `Harness.now`).
let harnessEpoch = Date(timeIntervalSince1970: 1_000_000)

extension Harness {
    /// Reports a condition-phase result for the node's current attempt (or `attempt`).
    @discardableResult
    mutating func condition(_ key: String, _ outcome: NodeResult.Outcome, attempt: Int? = nil) -> [SchedulerCommand] {
        let n = attempt ?? state.nodes[key]?.attempt ?? 1
        return send(.result(NodeResult(key: key, attempt: n, phase: .condition, outcome: outcome, worker: "w")))
    }

    /// Reports that a worker began the node's current attempt (or `attempt`), at the harness clock unless `at` is given.
    @discardableResult
    mutating func started(_ key: String, attempt: Int? = nil, at: Date? = nil) -> [SchedulerCommand] {
        let n = attempt ?? state.nodes[key]?.attempt ?? 1
        return send(.started(key: key, attempt: n, worker: "w", at: at ?? now))
    }

    /// Sets the clock to `date` and sends `.tick` (exact, unlike adding small steps to the clock).
    @discardableResult
    mutating func advance(to date: Date) -> [SchedulerCommand] {
        now = date
        return send(.tick)
    }

    /// Seconds from the harness clock until the node's due time.
    func dueIn(_ key: String) -> Double? {
        state.nodes[key]?.dueAt.map { $0.timeIntervalSince(now) }
    }

    /// Seconds from the harness clock until the node's deadline.
    func deadlineIn(_ key: String) -> Double? {
        state.nodes[key]?.deadline.map { $0.timeIntervalSince(now) }
    }
}

/// The node states as a store would give them back: the columns, plus the
/// bookkeeping written as JSON text and parsed again.
func storedNodes(_ state: RunState) throws -> [String: NodeState] {
    var stored: [String: NodeState] = [:]
    for (key, node) in state.nodes {
        var copy = NodeState(
            status: node.status, attempt: node.attempt, input: node.input, output: node.output,
            error: node.error, worker: node.worker)
        copy.restore(bookkeeping: try JSONParser.parse(node.bookkeeping.serialized()))
        stored[key] = copy
    }
    return stored
}

/// A run rebuilt from what a store would hold, as a restarted coordinator loads it.
func rebuilt(_ state: RunState) throws -> RunState {
    RunState(runID: state.runID, graph: state.graph, status: state.status, error: state.error, nodes: try storedNodes(state))
}

/// The problem reported for `field` (on `node`, or on the graph as a whole when nil).
func problem(_ problems: [GraphProblem], node: String?, field: String) -> GraphProblem? {
    problems.first { $0.node == node && $0.field == field }
}

extension Array where Element == SchedulerCommand {
    /// Events of one kind.
    func events(_ kind: String) -> [(key: String, kind: String, detail: JSON)] { events.filter { $0.kind == kind } }
}
