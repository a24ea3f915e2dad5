import Foundation

/// Time-driven transitions: back-offs, repeat waits and delays that are due, and attempts past their deadline.
extension RunState {
    mutating func fireTimers(into out: inout Commands) {
        for key in graph.order where timed.contains(key) {
            let node = nodes[key]!
            if node.status == .waiting, let due = node.dueAt, due <= out.now {
                switch node.waitingFor {
                case .delay?:
                    evaluate(end(key, as: .succeeded, output: DelayProcedure.output(firedAt: out.now), startedAt: due, into: &out), into: &out)
                case .retry?, .repeat?, nil:
                    evaluate(beginRun(key, newAttempt: true, into: &out), into: &out)
                }
            } else if node.status == .running || node.status == .queued, let deadline = node.deadline, deadline <= out.now {
                let timeout = graph.nodes[key]!.policies.timeout ?? 0
                out.append(.cancelTasks(runID: runID, attempts: [TaskRef(key: key, attempt: node.attempt)]))
                failAttempt(key, message: "timed out: no result within \(DurationText.format(timeout)) (plus \(DurationText.format(Self.timeoutGrace(timeout))) grace)",
                            permanent: false, event: "timed_out", into: &out)
            }
        }
    }
}
