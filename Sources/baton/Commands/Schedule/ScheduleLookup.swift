import BatonCommandLine
import BatonStore

/// Finds a named schedule, or fails in one line (exit 2) for a bad or unknown name.
enum ScheduleLookup {
    static func find(_ name: String, in store: Store) throws -> ScheduleRow {
        guard let schedule = try store.schedule(named: name) else { throw unknown(name) }
        return schedule
    }

    static func unknown(_ name: String) -> CLIFailure {
        CLIFailure("no schedule named '\(name)' (see `baton schedule list`)", exitCode: 2)
    }
}
