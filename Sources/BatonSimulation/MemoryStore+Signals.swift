import Baton
import BatonStore
import Foundation

extension MemoryStore {
    /// Stores a signal for node `node` of run `runID`, as `Store.signal` does, with the same refusals
    /// (a `SignalRefusal`, nothing stored), and wakes the listening connections; returns its id.
    @discardableResult
    public func signal(run runID: String, node: String, value: JSON = .null, maxBytes: Int = GraphLimits().maxOutputBytes) throws -> Int {
        let size = value.serializedBytes().count
        guard size <= maxBytes else {
            throw SignalRefusal("the signal's value is \(size) bytes, more than the output limit of \(maxBytes) (BATON_MAX_OUTPUT_BYTES)")
        }
        guard let run = tables.runs[runID] else { throw SignalRefusal("no run with id \(runID)", missing: true) }
        guard !run.status.isTerminal else { throw SignalRefusal("run \(runID) already ended (\(run.status.rawValue)); it takes no signal") }
        guard let row = tables.nodes[runID]?[node] else { throw SignalRefusal("run \(runID) has no node '\(node)'", missing: true) }
        guard row.procedure == SignalSpec.procedureName else {
            throw SignalRefusal("node '\(node)' is not a signal node (it runs \(row.procedure)); only a node of kind signal takes a signal")
        }
        if row.status == .succeeded { throw SignalRefusal("node '\(node)' already received its signal; a second one is refused") }
        if row.status.isTerminal { throw SignalRefusal("node '\(node)' already ended (\(row.status.rawValue)); it takes no signal") }
        if row.scheduler["signal"] != nil {
            throw SignalRefusal("node '\(node)' already has a signal, kept until it waits for one; a second one is refused")
        }
        if tables.requests.contains(where: { $0.runID == runID && $0.node == node && $0.kind == .signal && $0.handledAt == nil }) {
            throw SignalRefusal("node '\(node)' already has a signal on its way to the coordinator; a second one is refused")
        }
        let id = nextRequestID
        nextRequestID += 1
        tables.requests.append(
            MemoryRequestRow(id: id, runID: runID, kind: .signal, node: node, reason: nil, value: value, requestedAt: now, handledAt: nil))
        notify(.newRequest(runID: runID))
        return id
    }
}
