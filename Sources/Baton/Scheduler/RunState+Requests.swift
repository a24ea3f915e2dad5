import Foundation

/// What users ask of a whole run: cancel it, or run it again.
extension RunState {
    mutating func cancelRun(reason: String, into out: inout Commands) {
        cancelRequested = true
        if status == .pending { status = .running }  // so it can end, as cancelled, below
        error = reason
        var signalled: [TaskRef] = []
        for key in graph.order where !nodes[key]!.status.isTerminal {
            let node = nodes[key]!
            if node.status == .queued || node.status == .running { signalled.append(TaskRef(key: key, attempt: node.attempt)) }
            _ = end(key, as: .cancelled, error: reason, into: &out)
        }
        if !signalled.isEmpty { out.append(.cancelTasks(runID: runID, attempts: signalled)) }
    }

    /// Resets failed and cancelled nodes (or `from` and everything downstream) to pending and runs again;
    /// stored outputs of the rest are reused. Attempt numbers keep counting, so late results stay stale.
    mutating func retryRun(from: String?, into out: inout Commands) {
        guard status == .failed || status == .cancelled else { return }
        var again = Set<String>()
        if let from {
            guard graph.nodes[from] != nil else { return }
            var work = [from]
            while let key = work.popLast() {
                if again.insert(key).inserted { work += dependents[key] ?? [] }
            }
        } else {
            again = Set(graph.order.filter {
                let s = nodes[$0]!.status
                return s == .failed || s == .cancelled || (s == .skipped && nodes[$0]!.error?.hasPrefix("dependency") == true)
            })
        }
        guard !again.isEmpty else { return }
        status = .running
        error = nil
        cancelRequested = false
        out.append(.runStatus(.running, error: nil))
        for key in graph.order where again.contains(key) {
            var node = nodes[key]!
            node.status = .pending
            node.output = nil
            node.error = nil
            node.input = nil
            node.failures = 0
            node.runs = 0
            node.dueAt = nil
            node.deadline = nil
            node.waitingFor = nil
            node.phase = .run
            var change = NodeChange(key: key, status: .pending, attempt: node.attempt, event: "reset")
            change.reset = true
            set(key, node, change, into: &out)
        }
        recount()
        evaluate(graph.order.filter { nodes[$0]!.status == .pending && openDependencies[$0] == 0 }, into: &out)
    }
}
