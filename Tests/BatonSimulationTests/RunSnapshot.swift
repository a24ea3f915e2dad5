import Baton
import Foundation

/// What `loadRun` gave at one point of a scenario, comparable across the two stores (which give
/// runs different ids).
struct RunSnapshot: Equatable, CustomStringConvertible {
    let status: RunStatus
    let error: String?
    /// The graph's order after loading (children of started groups and maps included).
    let order: [String]
    /// Every node's state, bookkeeping included (`NodeState ==`).
    let nodes: [String: NodeState]
    /// Whether the batch before it was given a number (it queued tasks).
    let numbered: Bool

    init(_ state: RunState, numbered: Bool) {
        status = state.status
        error = state.error
        order = state.graph.order
        nodes = state.nodes
        self.numbered = numbered
    }

    var description: String {
        let rows = order.map { key in
            let n = nodes[key]!
            return "\(key): \(n.status.rawValue) #\(n.attempt) in=\(n.input.map { $0.serialized() } ?? "-") "
                + "out=\(n.output.map { $0.serialized() } ?? "-") err=\(n.error ?? "-") published=\(n.publishedAttempt.map(String.init) ?? "-") "
                + "bookkeeping=\(n.bookkeeping.serialized())"
        }
        return "\(status.rawValue) \(error ?? "") numbered=\(numbered) [\(rows.joined(separator: "; "))]"
    }
}
