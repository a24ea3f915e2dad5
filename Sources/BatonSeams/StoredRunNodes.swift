import Baton

/// The one reading of a run's stored node rows, for both stores' `loadRun`: each `StoredNode`, in
/// position order, becomes the node's `NodeState` (a queued node's input, bookkeeping restored, its
/// attempt's token, a queued attempt counted as published once its batch is confirmed) and its
/// fragment; `runState` then builds the `RunState`. A row that cannot be read throws a `StoreError`
/// naming the run and node: that run is broken, not the database.
public struct StoredRunNodes {
    public let runID: String
    private var states: [String: NodeState] = [:]
    private var fragments: [(parent: String, fragment: GroupSpec)] = []
    private var order: [String] = []

    public init(runID: String) { self.runID = runID }

    /// Reads `row` (the next in position order).
    public mutating func add(_ row: StoredNode) throws {
        let key = row.key
        order.append(key)
        if let fragment = row.fragment {
            do { fragments.append((key, try WireFormat.decode(GroupSpec.self, from: fragment.bytes, what: "stored fragment"))) } catch {
                throw StoreError("run \(runID): the children of node '\(key)' cannot be read: \(error)")
            }
        }
        guard let status = NodeStatus(rawValue: row.status) else {
            throw StoreError("run \(runID): node '\(key)' has unknown status '\(row.status)'")
        }
        do {
            var state = NodeState(
                status: status, attempt: row.attempts, input: status == .queued ? try row.input?.parsed(maxDepth: 1024) : nil,
                output: try row.output?.parsed(maxDepth: 1024), error: row.error, worker: row.worker)
            if let scheduler = row.scheduler { state.restore(bookkeeping: try scheduler.parsed(maxDepth: JSONParser.defaultMaxDepth)) }
            state.attemptToken = row.attemptToken.flatMap(AttemptToken.init(text:))
            if status == .queued, row.confirmed { state.publishedAttempt = state.attempt }
            states[key] = state
        } catch {
            throw StoreError("run \(runID): node '\(key)' cannot be read: \(error)")
        }
    }

    /// The run with `graph` (its top-level nodes put in the rows' order), its status and error, and
    /// the node states read; a row of a node not in the graph throws.
    public mutating func runState(graph: Graph, status: RunStatus, error: String?) throws -> RunState {
        var nodes: [String: NodeState] = [:]
        swap(&nodes, &states)  // handed over, not copied: a large run's states are most of a load
        let state = RunState(
            runID: runID, graph: graph.reordered(order.filter { RunState.parent(of: $0) == nil }), status: status, error: error,
            nodes: nodes, fragments: fragments)
        if let stray = order.first(where: { state.graph.nodes[$0] == nil }) {
            throw StoreError("run \(runID): node '\(stray)' is not in the run's graph")
        }
        return state
    }
}
