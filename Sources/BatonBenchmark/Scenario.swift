import Baton

/// A benchmark graph shape: N no-op (`baton.echo`) nodes into one join that only waits for them
/// (`fan-out`) or injects every output (`fan-in`), or a chain of N nodes each reading the previous one.
enum Scenario: String, CaseIterable {
    case fanOut = "fan-out"
    case fanIn = "fan-in"
    case chain

    /// Nodes in the graph of size `n`.
    func nodeCount(_ n: Int) -> Int { self == .chain ? n : n + 1 }

    /// What the latency columns measure.
    var hopName: String { self == .chain ? "per-hop (finished->next started)" : "queued->started" }

    /// The graph of size `n`.
    func graph(_ n: Int) -> JSON {
        var nodes: [(key: String, value: JSON)] = []
        switch self {
        case .fanOut, .fanIn:
            for i in 0..<n { nodes.append(("n-\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
            if self == .fanOut {
                nodes.append(
                    ("join", ["procedure": "baton.echo", "input": ["count": .int(Int64(n))], "after": .array((0..<n).map { .string("n-\($0)") })]))
            } else {
                nodes.append(
                    ("join", ["procedure": "baton.echo", "input": ["all": .array((0..<n).map { ["$from": .string("n-\($0)"), "select": "/i"] })]]))
            }
        case .chain:
            nodes.append(("c-0", ["procedure": "baton.echo", "input": ["hop": 0]]))
            for i in 1..<n {
                let input: JSON = ["hop": .int(Int64(i)), "previous": ["$from": .string("c-\(i - 1)"), "select": "/hop"]]
                nodes.append(("c-\(i)", ["procedure": "baton.echo", "input": input]))
            }
        }
        return ["name": .string("bench-\(rawValue)-\(n)"), "nodes": .object(JSONObject(nodes))]
    }

    /// The latencies (seconds, sorted) of a finished run's node timings, in graph order.
    func latencies(_ rows: [(queued: Double, started: Double, finished: Double)]) -> [Double] {
        switch self {
        case .fanOut, .fanIn: rows.map { $0.started - $0.queued }.sorted()
        case .chain: zip(rows, rows.dropFirst()).map { $1.started - $0.finished }.sorted()
        }
    }
}
