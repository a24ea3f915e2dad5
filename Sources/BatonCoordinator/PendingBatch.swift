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
    /// Changes to `baton.holds`, netted per row (by seq), with the run each belongs to.
    private(set) var holds: [Int64: (runID: String, change: HoldChange)] = [:]

    mutating func record(_ runID: String, _ new: [SchedulerCommand]) {
        guard !new.isEmpty else { return }
        if commands[runID] == nil { order.append(runID) }
        commands[runID, default: []].append(contentsOf: new)
    }

    /// Records what the admission table changed, netted so each row is written once per statement:
    /// a row inserted and granted in one batch is inserted granted; inserted and deleted, not written.
    mutating func hold(_ change: AdmissionTable.Change) {
        switch change {
        case let .requested(entry):
            holds[entry.seq] = (entry.runID, .insert(entry))
        case let .granted(entry):
            if case .insert? = holds[entry.seq]?.change {
                holds[entry.seq] = (entry.runID, .insert(entry))
            } else {
                holds[entry.seq] = (entry.runID, .grant(seq: entry.seq))
            }
        case let .released(entry):
            if case .insert? = holds[entry.seq]?.change {
                holds[entry.seq] = nil
            } else {
                holds[entry.seq] = (entry.runID, .delete(seq: entry.seq))
            }
        }
    }

    /// The hold changes to write, oldest row first.
    var holdChanges: [HoldChange] { holds.keys.sorted().map { holds[$0]!.change } }

    /// Drops what was decided for `runID` (its run failed as a whole).
    mutating func drop(_ runID: String) {
        commands[runID] = nil
        order.removeAll { $0 == runID }
        holds = holds.filter { $0.value.runID != runID }
    }

    var runs: [(runID: String, commands: [SchedulerCommand])] { order.map { ($0, commands[$0]!) } }

    /// True when runs changed or requests were taken: that must be committed without waiting.
    /// Heartbeats and publish marks alone are bookkeeping; they ride along with the next batch,
    /// so a marks-only commit (a durable write) never sits between a result and the next task.
    var hasDecisions: Bool { !order.isEmpty || !handledRequests.isEmpty || !holds.isEmpty }

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
            part.holds = holds.filter { $0.value.runID == runID }
            parts.append(part)
        }
        let elsewhere = holds.filter { !order.contains($0.value.runID) }  // e.g. releases of a run that failed as a whole
        if !elsewhere.isEmpty { parts[0].holds = elsewhere }
        return parts
    }

    /// The same batch as consecutive pieces of at most `maxCommands` commands each, in order (the
    /// first also carries the heartbeats, requests and confirmed batch): committed and published one
    /// after another, as if they had been decided in as many batches, so a run that dispatches 100,000
    /// nodes at once needs memory for one piece's statement, and workers start on the first piece
    /// while the next is written. A batch with admission changes stays whole (a hold and the queued
    /// node it admits are recorded together).
    func chunks(maxCommands: Int) -> [PendingBatch] {
        guard commandCount > maxCommands, holds.isEmpty else { return [self] }
        var parts: [PendingBatch] = []
        var part = PendingBatch()
        part.heartbeats = heartbeats
        part.handledRequests = handledRequests
        part.confirmedBatch = confirmedBatch
        var size = 0
        for runID in order {
            var rest = commands[runID]![...]
            while !rest.isEmpty {
                if size == maxCommands {
                    parts.append(part)
                    part = PendingBatch()
                    size = 0
                }
                let piece = rest.prefix(maxCommands - size)
                part.record(runID, Array(piece))
                size += piece.count
                rest = rest.dropFirst(piece.count)
            }
        }
        parts.append(part)
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
