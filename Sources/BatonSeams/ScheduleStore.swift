import Baton

/// The store seam of `ScheduleFiring`: what firing schedules reads and writes. `Store` is the
/// production type; the cluster simulator's `MemoryStore` is its twin.
public protocol ScheduleStore: AnyObject {
    /// The schedules of the partitions `coordinator` holds that are due (or new, or queued), with the database's time.
    func dueSchedules(coordinator: String) throws -> (now: Double, schedules: [ScheduleRow])
    /// Submits a schedule's run under an idempotency key: the run made earlier under it, if any.
    func submitScheduled(_ graph: Graph, idempotencyKey: String) throws -> SubmittedRun
    /// The live workers (`Store.liveWorkers`): a firing plans each node that names no version on the
    /// newest one they serve, as `baton submit` does.
    func liveWorkers(within seconds: Double?) throws -> [WorkerRow]
    /// Stores a step's outcome if the schedule's next time is still `expectedNext`.
    func recordScheduleStep(
        _ name: String, expectedNext: Double?, step: ScheduleStep, lastFired: Double?, lastRunID: String?, error: String?
    ) throws -> Bool
}
