import Baton
import BatonAMQP
import BatonStore

/// What the coordinator has decided since its last commit: scheduler commands per run (in the
/// order runs were first touched), heartbeats, handled requests and confirmed publications.
/// A value; `CoordinatorLoop` commits it, then publishes what `publications` lists.
struct PendingBatch: Sendable {
    private(set) var order: [String] = []
    private(set) var commands: [String: [SchedulerCommand]] = [:]
    var heartbeats: [WorkerHeartbeat] = []
    /// The newest of `heartbeats` from the shared queue: acked, with those before it, once they are recorded.
    var heartbeatsReceipt: BrokerReceipt?
    var handledRequests: [Int] = []
    /// The run of each handled request (`handled(_:runID:)`), so a run's requests can be dropped with it.
    private(set) var requestRuns: [Int: String] = [:]
    /// The latest batch whose tasks the broker confirmed after the previous commit, to be recorded in this one.
    var confirmedBatch: Int64?
    /// The partitions whose tasks the confirmed batches published.
    var confirmedPartitions: Set<Int> = []
    /// Changes to `baton.holds` of this batch's runs, in order, netted (`hold(_:)`).
    private(set) var holds: [HoldChange] = []

    /// Notes that a message of `runID` was consumed in this batch even if it changed nothing (a late or
    /// stale report): the commit must still prove the run's partition is held, or a coordinator that
    /// lost it unawares would ack a report the new owner needs.
    mutating func witness(_ runID: String) {
        if commands[runID] == nil {
            order.append(runID)
            commands[runID] = []
        }
    }

    mutating func record(_ runID: String, _ new: [SchedulerCommand]) {
        guard !new.isEmpty else { return }
        if commands[runID] == nil { order.append(runID) }
        commands[runID, default: []].append(contentsOf: new)
    }

    /// Records a change to `baton.holds`, netted so the statement (whose parts all see the table as it
    /// was before it) writes what the changes in order would: a release also cancels the node's request
    /// made in this batch (the delete sees only rows of earlier batches).
    mutating func hold(_ change: HoldChange) {
        if case let .release(runID, key) = change {
            holds.removeAll { if case let .insert(r, request) = $0 { r == runID && request.key == key } else { false } }
            if holds.contains(change) { return }
        }
        holds.append(change)
    }

    /// Whether this batch releases the holds of `key` of run `runID` (deleting the rows stored before it).
    func releases(runID: String, key: String) -> Bool { holds.contains(.release(runID: runID, key: key)) }

    /// The hold changes to write, in order.
    var holdChanges: [HoldChange] { holds }

    /// Drops what was decided for `runID` (its run failed as a whole).
    mutating func drop(_ runID: String) {
        commands[runID] = nil
        order.removeAll { $0 == runID }
        holds.removeAll { $0.runID == runID }
    }

    /// Records that `request` (of `runID`) is handled by this batch.
    mutating func handled(_ request: Int, runID: String) {
        handledRequests.append(request)
        requestRuns[request] = runID
    }

    /// Drops everything decided for the runs `lost` names, their requests included (they stay open):
    /// the coordinator no longer owns them, and what it decided from its copy must not be written
    /// even if it takes their partition again under a new epoch.
    mutating func drop(runsWhere lost: (String) -> Bool) {
        for runID in order where lost(runID) { drop(runID) }
        holds.removeAll { lost($0.runID) }
        handledRequests.removeAll { requestRuns[$0].map(lost) ?? false }
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
        shared.heartbeatsReceipt = heartbeatsReceipt
        shared.handledRequests = handledRequests
        shared.confirmedBatch = confirmedBatch
        shared.confirmedPartitions = confirmedPartitions
        parts.append(shared)
        for runID in order {
            var part = PendingBatch()
            part.record(runID, commands[runID]!)
            part.holds = holds.filter { $0.runID == runID }
            parts.append(part)
        }
        let elsewhere = holds.filter { !order.contains($0.runID) }  // e.g. `told` of a run with no commands
        if !elsewhere.isEmpty { parts[0].holds = elsewhere }
        return parts
    }

    /// The same batch as consecutive pieces of at most `maxCommands` commands and about `maxBytes`
    /// bytes of values each (`SchedulerCommand.estimatedBytes`), in order (the first also carries the
    /// heartbeats, requests and confirmed batch): committed and published one after another, as if
    /// they had been decided in as many batches, so a run that dispatches 100,000 nodes at once, or
    /// 140 nodes of 8 MiB inputs, needs memory for one piece's statement, far below PostgreSQL's 1 GB
    /// message limit, and workers start on the first piece while the next is written. A piece ends only
    /// before a node's change, an event or a run's status, never between a change and the dispatch,
    /// children or cache row that go with it; one command larger than `maxBytes` is a piece of its own.
    /// The runs with admission changes stay whole, together with every hold change, in the first piece
    /// (a hold and the queued node it admits are recorded together); the other runs are cut as usual.
    func chunks(maxCommands: Int, maxBytes: Int = .max) -> [PendingBatch] {
        var total = 0
        var count = 0
        for runID in order {
            for command in commands[runID]! {
                total += command.estimatedBytes
                count += 1
            }
        }
        guard count > maxCommands || total > maxBytes else { return [self] }
        guard holds.isEmpty else { return holdingFirst(maxCommands: maxCommands, maxBytes: maxBytes) }
        var parts: [PendingBatch] = []
        var part = PendingBatch()
        part.heartbeats = heartbeats
        part.heartbeatsReceipt = heartbeatsReceipt
        part.handledRequests = handledRequests
        part.confirmedBatch = confirmedBatch
        part.confirmedPartitions = confirmedPartitions
        var size = 0
        var bytes = 0
        for runID in order {
            let list = commands[runID]!
            if list.isEmpty { part.witness(runID) }
            var start = 0
            for (index, command) in list.enumerated() {
                let weight = command.estimatedBytes
                if size > 0 && command.startsPiece && (size >= maxCommands || bytes + weight > maxBytes) {
                    if index > start { part.record(runID, Array(list[start..<index])) }
                    parts.append(part)
                    part = PendingBatch()
                    size = 0
                    bytes = 0
                    start = index
                }
                size += 1
                bytes += weight
            }
            if list.count > start { part.record(runID, Array(list[start...])) }
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

    /// `chunks` of a batch with admission changes: the runs they concern, the holds and the bookkeeping
    /// in one piece, then the other runs cut by count and bytes.
    private func holdingFirst(maxCommands: Int, maxBytes: Int) -> [PendingBatch] {
        let holding = Set(holds.map(\.runID))
        guard order.contains(where: { !holding.contains($0) }) else { return [self] }
        var first = self
        var rest = PendingBatch()
        for runID in order where !holding.contains(runID) {
            rest.witness(runID)
            rest.record(runID, commands[runID]!)
            first.commands[runID] = nil
        }
        first.order = order.filter(holding.contains)
        return [first] + rest.chunks(maxCommands: maxCommands, maxBytes: maxBytes)
    }
}
