import Baton
import BatonPostgres

extension Store {
    /// Ids of runs that are not finished, oldest first.
    public func activeRunIDs() throws -> [String] {
        let r = try connection.query("select id::text from baton.runs where status in ('pending', 'running') order by submitted_at")
        return (0..<r.rowCount).map { r[row: $0, column: "id"]! }
    }

    /// The scheduler state of a run as stored, or nil if there is no such run.
    public func loadRun(_ id: String) throws -> RunState? {
        let run = try connection.query("select status, error, graph::text as graph from baton.runs where id = $1::uuid", [id])
        guard run.rowCount == 1 else { return nil }
        let nodes = try connection.query("""
            select key, status, attempts, input::text as input, output::text as output, error, worker, scheduler::text as scheduler
            from baton.nodes where run_id = $1::uuid order by position
            """, [id])
        let source = try JSONParser.parse(run[row: 0, column: "graph"]!, maxDepth: 1024)
        var graph: Graph
        do {
            graph = try GraphDecoder(limits: GraphLimits(maxNodes: .max, maxGraphBytes: .max, maxDepth: 1024)).decode(source)
        } catch {
            throw StoreError("run \(id): the stored graph no longer validates: \(error)")
        }
        var states: [String: NodeState] = [:]
        var order: [String] = []
        order.reserveCapacity(nodes.rowCount)
        for i in 0..<nodes.rowCount {
            let key = nodes[row: i, column: "key"]!
            order.append(key)
            let status = NodeStatus(rawValue: nodes[row: i, column: "status"]!) ?? .pending
            var state = NodeState(
                status: status,
                attempt: nodes.int(i, "attempts") ?? 0,
                // The stored input is the template until the node is queued, then the resolved value.
                input: status == .pending ? nil : try nodes[row: i, column: "input"].map { try JSONParser.parse($0, maxDepth: 1024) },
                output: try nodes[row: i, column: "output"].map { try JSONParser.parse($0, maxDepth: 1024) },
                error: nodes[row: i, column: "error"],
                worker: nodes[row: i, column: "worker"])
            if let text = nodes[row: i, column: "scheduler"] { state.restore(bookkeeping: try JSONParser.parse(text)) }
            states[key] = state
        }
        graph = graph.reordered(order)
        return RunState(runID: id, graph: graph, status: RunStatus(rawValue: run[row: 0, column: "status"]!) ?? .pending,
                        error: run[row: 0, column: "error"], nodes: states)
    }
}
