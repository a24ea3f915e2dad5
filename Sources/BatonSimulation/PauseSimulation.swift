import Baton
import Foundation

/// Pauses in the simulator (`baton pause` as a user's action): half the seeds (drawn from a stream of
/// their own, so the others run as before pauses existed) pause and resume procedures, pools and runs
/// at random moments, across the faults; at the heal every pause ends so the runs can. The invariant:
/// nothing paused is dispatched — no coordinator decides to queue a node of a run, pool or procedure
/// that was paused when its turn began (`violations`, told each decision through
/// `CoordinatorConfiguration.decided`).
struct PauseSimulation {
    /// When each pause in force ends (it lasts 1 to 20 virtual seconds).
    private var due: [PauseTarget: Date] = [:]
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed ^ 0x9A05_E5ED) }

    /// The targets a seed may pause: the procedures and pools of its runs' nodes, and the runs.
    static func candidates(store: MemoryStore, runs: [String]) -> [PauseTarget] {
        var procedures = Set<String>()
        var pools = Set<String>()
        for id in runs {
            for row in store.nodes(ofRun: id) {
                procedures.insert(row.procedure)
                pools.insert(row.pool)
            }
        }
        return runs.map { PauseTarget(.run, $0) } + pools.sorted().map { PauseTarget(.pool, $0) }
            + procedures.sorted().map { PauseTarget(.procedure, $0) }
    }

    /// Pauses `target` for 1 to 20 virtual seconds, if it is not paused; returns what it did, for the trace.
    mutating func pause(_ target: PauseTarget, store: MemoryStore) -> String {
        let now = store.clock()
        guard due[target] == nil else { return "pause \(target): paused already" }
        guard (try? store.pause(target)) == true else { return "pause \(target) refused (the run ended)" }
        due[target] = now.addingTimeInterval(1 + random.unit() * 19)
        return "pause \(target)"
    }

    /// Ends the pauses whose time is up; returns what it did, for the trace.
    mutating func resumeDue(store: MemoryStore) -> [String] {
        let now = store.clock()
        var done: [String] = []
        for (target, until) in due.sorted(by: { $0.value < $1.value }) where until <= now {
            end(target, store: store)
            done.append("resume \(target)")
        }
        return done
    }

    private mutating func end(_ target: PauseTarget, store: MemoryStore) {
        store.resume(target)
        due[target] = nil
    }

    /// Ends every pause (the heal: runs must be able to end).
    mutating func resumeAll(store: MemoryStore) {
        for target in due.keys.sorted(by: { $0.description < $1.description }) { end(target, store: store) }
    }

    /// The violations of "nothing paused is dispatched" in decisions a coordinator made in a turn that
    /// began while `paused` was in force: the nodes it queued (a change to `queued`) that a pause
    /// covers. A turn hears of every pause stored before it (it reads the notifications, or the table
    /// when it connects or balances, before it starts anything); what it decided before is no concern.
    static func violations(
        store: MemoryStore, coordinator: String, runID: String, commands: [SchedulerCommand], paused: Set<PauseTarget>
    ) -> [String] {
        guard !paused.isEmpty else { return [] }
        var found: [String] = []
        for command in commands {
            guard case let .node(change) = command, change.status == .queued, let row = store.tables.nodes[runID]?[change.key] else { continue }
            let condition = change.event == .conditionQueued
            // A child added in this batch has no row yet: its run's and pool's pauses are checked through the run's.
            let covering = [PauseTarget(.run, runID), PauseTarget(.pool, row.pool)] + (condition ? [] : [PauseTarget(.procedure, row.procedure)])
            if let pause = covering.first(where: paused.contains) {
                found.append(
                    "\(coordinator) queued run \(runID) node \(change.key) (attempt \(change.attempt)) in a turn that began while \(pause) was paused"
                )
            }
        }
        return found
    }
}
