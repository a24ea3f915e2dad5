import Foundation

/// Time-driven transitions: back-offs, repeat waits and delays that are due, and attempts past their deadline.
extension RunState {
    /// Called only on a `.tick`, when a timer is due (not after every event): it goes through the
    /// timed nodes in graph order, so what fires together is handled in a fixed order.
    mutating func fireTimers(into out: inout Commands) {
        for key in graph.order where timers.isArmed(key) {
            let node = nodes[key]!
            if node.status == .waiting, let due = node.dueAt, due <= out.now {
                switch node.waitingFor {
                case .delay?:
                    evaluate(
                        end(
                            key, as: .succeeded, output: DelayProcedure.output(firedAt: out.now), startedAt: due, finishedAt: out.now,
                            into: &out), into: &out)
                case .admission?, .signal?, .paused?:
                    break  // no due time: `.admitted`, `.cached`, `.signal` or a resume moves it on
                case .retry?, .repeat?, nil:
                    evaluate(beginRun(key, newAttempt: true, into: &out), into: &out)
                }
            } else if node.status == .waiting, node.waitingFor == .signal, let deadline = node.deadline, deadline <= out.now {
                signalTimedOut(key, into: &out)
            } else if node.status == .running, let deadline = node.deadline, deadline <= out.now, graph.nodes[key]!.kind.isComposite {
                let timeout = graph.nodes[key]!.policies.timeout ?? 0
                fail(key, message: "timed out: the group did not end within \(DurationText.format(timeout))", event: .timedOut, into: &out)
            } else if node.status == .running || node.status == .queued, let deadline = node.deadline, deadline <= out.now {
                let timeout = graph.nodes[key]!.policies.timeout ?? 0
                out.append(.cancelTasks(runID: runID, attempts: [TaskRef(key: key, attempt: node.attempt)]))
                failAttempt(
                    key,
                    message:
                        "timed out: no result within \(DurationText.format(timeout)) (plus \(DurationText.format(Self.timeoutGrace(timeout))) grace)",
                    permanent: false, event: .timedOut, into: &out)
            }
        }
        // What was due is armed again from the nodes' own times: an entry that a transition left
        // behind without going through `set` is corrected here, once, rather than ticking for ever.
        for key in timers.takeDue(at: out.now) {
            if let node = nodes[key] { timers.set(key, at: Self.wakeUp(node)) }
        }
    }

    /// Gives the attempts a lost worker was running to another worker, as new attempts (the old
    /// ones' late results are then stale). This is not the node's failure: retries are not used up.
    mutating func reclaim(from worker: String, into out: inout Commands) {
        for key in graph.order {
            let node = nodes[key]!
            // A node running what it spawned holds no worker's slot: its children are reclaimed on their own.
            guard node.status == .running, node.worker == worker, children[key] == nil else { continue }
            out.append(
                .event(
                    key: key, kind: .leaseExpired,
                    detail: [
                        "attempt": .int(Int64(node.attempt)), "worker": .string(worker),
                        "message": .string("worker \(worker) stopped heartbeating; the attempt is sent out again"),
                    ]))
            out.append(.cancelTasks(runID: runID, attempts: [TaskRef(key: key, attempt: node.attempt)]))
            if node.phase == .condition {
                evaluate(beginCondition(key, into: &out), into: &out)
            } else {
                var again = node
                again.worker = nil
                giveBackAdmission(&again, key, into: &out)  // a lost lease releases too; the new attempt asks again
                nodes[key] = again
                evaluate(beginRun(key, newAttempt: true, into: &out), into: &out)
            }
        }
    }
}
