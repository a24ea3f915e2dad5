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

    /// The nodes a retry resets, in graph order, or why the run cannot be retried so.
    ///
    /// Without `from`: the nodes that failed or were cancelled, or were skipped because a dependency was.
    /// With `from`: that node and everything downstream of it, and also what they need that failed or was
    /// cancelled (transitively: a node that did not succeed gives its dependents nothing, so its own failed
    /// or cancelled dependencies are needed too), with what those brought down with them downstream
    /// (failed, cancelled, or skipped because a dependency was). Left as they are, such nodes would cancel
    /// the rerun at once. If a node that fails the run would still be left failed or cancelled, the run
    /// could not succeed, and the retry is refused.
    public func nodesToRetry(from: String?) throws(RetryRefusal) -> [String] {
        guard status == .failed || status == .cancelled else {
            throw RetryRefusal(description: "the run is \(status.rawValue); only a failed or cancelled run can be retried")
        }
        func didNotSucceed(_ key: String) -> Bool { nodes[key]!.status == .failed || nodes[key]!.status == .cancelled }
        func broughtDown(_ key: String) -> Bool {
            didNotSucceed(key) || (nodes[key]!.status == .skipped && nodes[key]!.error?.hasPrefix("dependency") == true)
        }
        var again = Set<String>()
        if let from {
            guard graph.nodes[from] != nil else { throw RetryRefusal(description: "the run has no node '\(from)'") }
            if let parent = Self.parent(of: from) {
                var top = parent
                while let up = Self.parent(of: top) { top = up }
                throw RetryRefusal(description: "node '\(from)' is inside '\(top)', which runs again as a whole; retry --from \(top)")
            }
            var down = [from]
            while let key = down.popLast() {
                if again.insert(key).inserted { down += nodes[key]?.dependents ?? [] }
            }
            var work = Array(again)
            while let key = work.popLast() {
                for needed in graph.nodes[key]!.dependencies where didNotSucceed(needed) && again.insert(needed).inserted { work.append(needed) }
                for dependent in nodes[key]?.dependents ?? [] where broughtDown(dependent) && again.insert(dependent).inserted {
                    work.append(dependent)
                }
            }
            if let left = graph.order.first(where: {
                !again.contains($0)
                    && (nodes[$0]!.status == .cancelled || (nodes[$0]!.status == .failed && graph.nodes[$0]!.policies.onFailure == .fail))
            }) {
                let verb = nodes[left]!.status == .failed ? "failed" : "was cancelled"
                throw RetryRefusal(
                    description: "node '\(left)' \(verb) and would not run again, so the run could not succeed; retry without --from to rerun it too")
            }
        } else {
            again = Set(graph.order.filter(broughtDown))
        }
        // Children are not retried on their own: their group, map or spawning node runs again whole.
        again = again.filter { Self.parent(of: $0) == nil }
        guard !again.isEmpty else { throw RetryRefusal(description: "no node failed or was cancelled; there is nothing to run again") }
        return graph.order.filter { again.contains($0) }
    }

    /// Resets the nodes `nodesToRetry(from:)` names to pending and runs again; stored outputs of the
    /// rest are reused. Attempt numbers keep counting, so late results stay stale. A refused retry does nothing.
    mutating func retryRun(from: String?, into out: inout Commands) {
        guard let again = try? nodesToRetry(from: from) else { return }
        dropHeldInputs()  // a run loaded to be retried holds those the store gave
        status = .running
        error = nil
        cancelRequested = false
        out.append(.runStatus(.running, error: nil))
        for key in again {
            prune(key, into: &out)  // children go; the node's change below carries what they reached
            var node = nodes[key]!
            node.status = .pending
            node.output = nil
            node.error = nil
            node.input = nil
            node.failures = 0
            node.runs = 0
            node.unstartedDeadLetters = 0
            node.dueAt = nil
            node.deadline = nil
            node.waitingFor = nil
            node.phase = .run
            var change = NodeChange(key: key, status: .pending, attempt: node.attempt, event: .reset)
            change.reset = true
            set(key, node, change, into: &out)
        }
        recount()
        evaluate(graph.order.filter { nodes[$0]!.status == .pending && nodes[$0]!.openDependencies == 0 }, into: &out)
    }
}

/// Why a run cannot be retried as asked.
public struct RetryRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
