import Baton

/// The procedures of a graph that no live worker serves in the node's pool: their nodes
/// would wait in their queues until such a worker starts. `baton.delay` needs no worker.
public struct UnservedProcedures: Sendable {
    public struct Entry: Equatable, Sendable {
        public let procedure: String
        public let pool: String
        public var nodes: [String]
    }

    public let entries: [Entry]

    public init(graph: Graph, workers: [WorkerRow]) {
        var served: [String: Set<String>] = [:]  // procedures by pool
        for worker in workers {
            for pool in worker.pools { served[pool, default: []].formUnion(worker.procedures) }
        }
        var unserved: [UnservedNode] = []
        // The children of groups too: they are known at submit (a map's children run its procedure).
        for node in graph.staticNodes where node.procedure != GroupSpec.procedureName {
            let procedures = [node.procedure] + (node.policies.condition.map { [$0.procedure] } ?? [])
            for procedure in procedures
            where procedure != DelayProcedure.name && procedure != SignalSpec.procedureName && served[node.pool]?.contains(procedure) != true {
                unserved.append(UnservedNode(key: node.key, procedure: procedure, pool: node.pool))
            }
        }
        self.init(unserved)
    }

    /// `nodes` grouped by procedure and pool, in the order each pair first comes.
    public init(_ nodes: [UnservedNode]) {
        var entries: [Entry] = []
        for node in nodes {
            if let i = entries.firstIndex(where: { $0.procedure == node.procedure && $0.pool == node.pool }) {
                entries[i].nodes.append(node.key)
            } else {
                entries.append(Entry(procedure: node.procedure, pool: node.pool, nodes: [node.key]))
            }
        }
        self.entries = entries
    }

    /// One warning line per procedure and pool.
    public var warnings: [String] {
        entries.map { e in
            let shown = e.nodes.prefix(5).joined(separator: ", ") + (e.nodes.count > 5 ? " and \(e.nodes.count - 5) more" : "")
            return "warning: no live worker serves procedure '\(e.procedure)' in pool '\(e.pool)' (node\(e.nodes.count == 1 ? "" : "s") \(shown)); "
                + "\(e.nodes.count == 1 ? "it waits" : "they wait") in the queue until one starts"
        }
    }

    /// The `unserved` member of `submit --json`.
    public var json: JSON {
        .array(entries.map { ["procedure": .string($0.procedure), "pool": .string($0.pool), "nodes": .array($0.nodes.map(JSON.string))] })
    }
}
