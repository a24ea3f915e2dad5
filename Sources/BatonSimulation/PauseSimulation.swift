import Baton
import Foundation

/// Pauses in the simulator (`baton pause` as a user's action): half the seeds (drawn from a stream of
/// their own, so the others run as before pauses existed) pause and resume procedures, pools and runs
/// at random moments, across the faults; at the heal every pause ends so the runs can. The invariant:
/// nothing paused is dispatched — no node is queued (event `queued` or `condition_queued`) for a run,
/// pool or procedure paused for longer than `hearing` by then, the time a coordinator may take to hear
/// of the pause and commit what it decided before (`PauseSimulation.hearing`).
struct PauseSimulation {
    /// Each pause made, from when (on the store's clock) to when it ended (nil: it still holds).
    private(set) var history: [(target: PauseTarget, from: Date, to: Date?)] = []
    /// When each pause in force ends (it lasts 1 to 20 virtual seconds).
    private var due: [PauseTarget: Date] = [:]
    var random: SeededRandom

    /// The most a coordinator takes, in virtual seconds, between a pause's commit and its last dispatch
    /// of what it covers: it hears of the pause at its next turn (NOTIFY) or, at the latest, its next
    /// poll (2 s); what it decided before is committed in that turn.
    static let hearing = 3.0

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
        history.append((target, now, nil))
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
        if let open = history.lastIndex(where: { $0.target == target && $0.to == nil }) { history[open].to = store.clock() }
    }

    /// Ends every pause (the heal: runs must be able to end).
    mutating func resumeAll(store: MemoryStore) {
        for target in due.keys.sorted(by: { $0.description < $1.description }) { end(target, store: store) }
    }

    /// The violations of "nothing paused is dispatched" in the runs' event logs.
    func violations(store: MemoryStore, runs: [String]) -> [String] {
        guard !history.isEmpty else { return [] }
        var found: [String] = []
        for id in runs {
            let rows = Dictionary(store.nodes(ofRun: id).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            for event in store.events(ofRun: id) where event.eventKind == .queued || event.eventKind == .conditionQueued {
                guard let key = event.node, let row = rows[key] else { continue }
                let covering = history.first { pause in
                    let covers =
                        switch pause.target.kind {
                        case .run: pause.target.name == id
                        case .pool: pause.target.name == row.pool
                        case .procedure: pause.target.name == row.procedure && event.eventKind == .queued
                        }
                    return covers && pause.from.addingTimeInterval(Self.hearing) <= event.at && (pause.to.map { event.at < $0 } ?? true)
                }
                if let covering {
                    found.append(
                        "run \(id) node \(key) was queued (event \(event.id)) while \(covering.target) had been paused for "
                            + String(format: "%.1f", event.at.timeIntervalSince(covering.from)) + " s")
                }
            }
        }
        return found
    }
}
