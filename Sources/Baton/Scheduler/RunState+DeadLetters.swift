import Foundation

/// Dead letters: an attempt's task the broker or a worker gave up on after too many deliveries.
///
/// A worker that dies returns every task it held, and each return counts a delivery. So a task
/// that kills its worker takes the tasks held beside it (prefetched, never started) to the
/// delivery limit with it. Only an attempt that started can be the one killing workers: one that
/// never did (its node still `queued`) goes out again as a new attempt, like a lost worker's, up
/// to `unstartedDeadLetterLimit` times per node, since a task that kills its worker before its
/// started report gets out looks the same. A started attempt, or one past that bound, fails its node.
extension RunState {
    /// How many times a node's never-started, dead-lettered attempts are dispatched again.
    public static let unstartedDeadLetterLimit = 3

    mutating func deadLettered(_ key: String, attempt: Int, reason: String, into out: inout Commands) {
        guard let node = nodes[key], node.attempt == attempt, node.status == .queued || node.status == .running, children[key] == nil
        else { return }  // stale: an older attempt, or the node moved on
        out.append(.cancelTasks(runID: runID, attempts: [TaskRef(key: key, attempt: attempt)]))
        guard node.status == .queued else {
            evaluate(end(key, as: .failed, error: reason, event: .deadLettered, into: &out), into: &out)
            return
        }
        guard node.unstartedDeadLetters < Self.unstartedDeadLetterLimit else {
            let error =
                "\(reason) (attempt \(attempt) never started; \(Self.unstartedDeadLetterLimit) earlier attempts dead-lettered "
                + "before they started were dispatched again)"
            evaluate(end(key, as: .failed, error: error, event: .deadLettered, into: &out), into: &out)
            return
        }
        var again = node
        again.unstartedDeadLetters += 1
        again.worker = nil
        out.append(
            .event(
                key: key, kind: .deadLetteredUnstarted,
                detail: [
                    "attempt": .int(Int64(attempt)), "error": .string(reason),
                    "count": .int(Int64(again.unstartedDeadLetters)), "limit": .int(Int64(Self.unstartedDeadLetterLimit)),
                    "message": .string(
                        "attempt \(attempt) was dead-lettered without starting: held by a worker that died; dispatched again "
                            + "(\(again.unstartedDeadLetters) of \(Self.unstartedDeadLetterLimit))"),
                ]))
        if node.phase == .condition {
            nodes[key] = again
            evaluate(beginCondition(key, into: &out), into: &out)
        } else {
            giveBackAdmission(&again, key, into: &out)  // as for a lost lease: the new attempt asks again
            nodes[key] = again
            evaluate(beginRun(key, newAttempt: true, into: &out), into: &out)
        }
    }
}
