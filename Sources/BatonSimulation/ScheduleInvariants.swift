import Baton
import BatonStore

/// The simulator's schedule: one firing every virtual second with `--catch-up all` and `--overlap
/// allow`, fired by whichever coordinator holds its partition while coordinators crash, pause and
/// lose their leases. Its guarantees: every due time fired at most once (one run per due time, none
/// of the graph's runs outside a key), and none missed (every due time the schedule has passed
/// has its run).
enum ScheduleInvariants {
    static let name = "sim-tick"
    static let graph: JSON = ["name": "sim-tick", "nodes": ["say": ["procedure": "baton.echo", "input": ["text": "tick"]]]]

    static var schedule: ScheduleRow {
        ScheduleRow(name: name, graph: graph, input: nil, cron: nil, everySeconds: 1, timezone: "UTC", overlap: .allow, catchUp: .all)
    }

    /// Broken guarantees, one line each, and how many due times fired.
    static func check(store: MemoryStore) -> (violations: [String], fired: Int) {
        guard let row = store.schedule(named: name), case let .success(timing) = row.timing() else {
            return (["schedule \(name) is missing"], 0)
        }
        var violations: [String] = []
        let keys = store.idempotencyKeys(startingWith: ScheduleRow.keyPrefix(name))
        let runs = store.tables.runs.values.filter { $0.name == name }.count
        if runs != keys.count || Set(keys.map(\.runID)).count != keys.count {
            violations.append("schedule \(name): \(runs) runs for \(keys.count) due times: a due time fired twice")
        }
        var expected: [String] = []
        // Due from the first due time the schedule's first step set (a new schedule starts from that step:
        // times between `baton schedule add` and it were never wanted, however a clock jump stretched them).
        if let handled = row.nextFireAt, let first = store.firstDue(ofSchedule: name) {
            var t: Double? = first
            while let due = t, due < handled - 0.0005 {
                expected.append(ScheduleRow.idempotencyKey(name: name, due: due))
                t = timing.next(after: due)
            }
        }
        let fired = Set(keys.map(\.key))
        let missed = expected.filter { !fired.contains($0) }
        if !missed.isEmpty {
            violations.append("schedule \(name): \(missed.count) due time(s) never fired under catch-up all, first \(missed[0])")
        }
        let unexpected = fired.subtracting(expected)
        if !unexpected.isEmpty {
            violations.append("schedule \(name): fired \(unexpected.sorted()[0]), which was never due (or not yet passed)")
        }
        return (violations, keys.count)
    }
}
