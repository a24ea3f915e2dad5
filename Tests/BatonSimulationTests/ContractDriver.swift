import Baton
import BatonStore
import Foundation

/// Runs a graph's scheduler against one store as a coordinator would, without a broker: each
/// batch of commands is applied, every dispatched task gets a result from `outcome`, the broker
/// confirms each numbered batch (an apply of its own), and after every apply the run is loaded back.
struct ContractDriver {
    let backend: ContractBackend
    /// A task's outcome, by its node and attempt.
    let outcome: (TaskDispatch) -> NodeResult.Outcome
    /// How many times a failed run is retried.
    var retries = 0

    /// The snapshots of a run of `graph` from submission to its end (or 200 steps), and the run's id.
    func run(
        _ graph: Graph, start: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) throws -> (
        id: String, snapshots: [RunSnapshot], events: [String]
    ) {
        let store = backend.store
        var retries = self.retries
        // The same tokens on both stores, in the order attempts are queued.
        let counter = Counter()
        let tokens = { counter.next() }
        let id = try backend.submit(graph)
        guard var state = try store.loadRun(id) else { throw StoreError("run \(id) was not stored") }
        var snapshots = [RunSnapshot(state, numbered: false)]
        var now = start
        var commands = state.handle(.start, at: now, random: { 0.5 }, tokens: tokens)
        for _ in 0..<200 {
            let batch = try store.apply(
                [(id, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: now)
            guard let loaded = try store.loadRun(id) else { throw StoreError("run \(id) vanished") }
            for case let .dispatch(task) in commands where loaded.nodes[task.key]?.attemptToken?.text != task.attemptToken {
                throw StoreError("node \(task.key) attempt \(task.attempt): loaded with another token than its task's")
            }
            snapshots.append(RunSnapshot(loaded, numbered: batch != nil))
            if let batch {  // the broker confirms the batch's tasks before any starts
                _ = try store.apply([], heartbeats: [], handledRequests: [], confirmedBatch: batch, holds: [], now: now)
                guard let confirmed = try store.loadRun(id) else { throw StoreError("run \(id) vanished") }
                snapshots.append(RunSnapshot(confirmed, numbered: false))
            }
            if state.status.isTerminal {
                guard state.status == .failed, retries > 0 else { break }
                retries -= 1  // a user's `baton retry`: failed and skipped nodes run again, children anew
                now = now.addingTimeInterval(1)
                commands = state.handle(.retry(from: nil), at: now, random: { 0.5 }, tokens: tokens)
                continue
            }
            let dispatches = commands.compactMap { if case let .dispatch(task) = $0 { task } else { nil } }
            now = now.addingTimeInterval(1)
            commands = []
            if dispatches.isEmpty {
                guard let wake = state.nextWakeUp else { break }
                now = max(now, wake)
                commands = state.handle(.tick, at: now, random: { 0.5 }, tokens: tokens)
                continue
            }
            for task in dispatches {
                commands += state.handle(
                    .started(key: task.key, attempt: task.attempt, worker: "w1", at: now.addingTimeInterval(-0.5)), at: now, random: { 0.5 },
                    tokens: tokens)
                let result = NodeResult(
                    key: task.key, attempt: task.attempt, phase: task.phase, outcome: outcome(task), worker: "w1",
                    startedAt: now.addingTimeInterval(-0.5), finishedAt: now.addingTimeInterval(0.25))
                commands += state.handle(.result(result), at: now, random: { 0.5 }, tokens: tokens)
            }
        }
        return (id, snapshots, try backend.events(id))
    }
}

/// Numbers attempt tokens 1, 2, 3...
final class Counter {
    private var last: UInt64 = 0
    func next() -> AttemptToken {
        last += 1
        return AttemptToken(high: 0xBA70, low: last)
    }
}
