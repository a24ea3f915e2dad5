import BatonStore

/// What `baton schedule list|show|pause|resume|trigger` read and ask, the same through either way in:
/// the database (`DirectRuns`) or `baton server`'s API (`RemoteRuns`). Both give the row types the
/// printing code takes; an unknown name is `ScheduleLookup.unknown` (exit 2) either way.
protocol ScheduleAccess {
    /// Every schedule, by name.
    func schedules() async throws -> [ScheduleRow]
    /// The schedule and its newest `runs` runs.
    func schedule(named name: String, runs: Int) async throws -> (schedule: ScheduleRow, runs: [ScheduleRun])
    func setPaused(_ name: String, _ paused: Bool) async throws
    /// Fires it now; the run's id and idempotency key.
    func trigger(_ name: String) async throws -> (runID: String, key: String)
    func close()
}
