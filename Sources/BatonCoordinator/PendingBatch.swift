import Baton
import BatonStore

/// What the coordinator has decided since its last commit: scheduler commands per run (in the
/// order runs were first touched), heartbeats, handled requests and confirmed publications.
/// A value; `CoordinatorLoop` commits it, then publishes what `publications` lists.
struct PendingBatch: Sendable {
    private(set) var order: [String] = []
    private(set) var commands: [String: [SchedulerCommand]] = [:]
    var heartbeats: [WorkerHeartbeat] = []
    var handledRequests: [Int] = []
    /// The latest batch whose tasks the broker confirmed after the previous commit, to be recorded in this one.
    var confirmedBatch: Int64?

    mutating func record(_ runID: String, _ new: [SchedulerCommand]) {
        guard !new.isEmpty else { return }
        if commands[runID] == nil { order.append(runID) }
        commands[runID, default: []].append(contentsOf: new)
    }

    /// Drops what was decided for `runID` (its run failed as a whole).
    mutating func drop(_ runID: String) {
        commands[runID] = nil
        order.removeAll { $0 == runID }
    }

    var runs: [(runID: String, commands: [SchedulerCommand])] { order.map { ($0, commands[$0]!) } }

    /// True when runs changed or requests were taken: that must be committed without waiting.
    /// Heartbeats and publish marks alone are bookkeeping; they ride along with the next batch,
    /// so a marks-only commit (a durable write) never sits between a result and the next task.
    var hasDecisions: Bool { !order.isEmpty || !handledRequests.isEmpty }

    var commandCount: Int { commands.values.reduce(0) { $0 + $1.count } }

    /// The same batch one run at a time (the first part also carries the heartbeats, requests and
    /// confirmed batch): how a batch that failed for a reason other than a lost connection is retried, so
    /// the run that caused it is found and failed alone.
    func split() -> [PendingBatch] {
        var parts: [PendingBatch] = []
        var shared = PendingBatch()
        shared.heartbeats = heartbeats
        shared.handledRequests = handledRequests
        shared.confirmedBatch = confirmedBatch
        parts.append(shared)
        for runID in order {
            var part = PendingBatch()
            part.record(runID, commands[runID]!)
            parts.append(part)
        }
        return parts
    }

    /// What to send once the batch is committed: tasks, then cancel signals, in decision order.
    var publications: [Publication] {
        var out: [Publication] = []
        for runID in order {
            for command in commands[runID]! {
                switch command {
                case let .dispatch(task): out.append(.task(task))
                case let .cancelTasks(runID, attempts): out.append(.cancel(ControlMessage(runID: runID, attempts: attempts)))
                default: break
                }
            }
        }
        return out
    }
}
