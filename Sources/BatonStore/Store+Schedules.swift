import Baton
import BatonPostgres
import Foundation

/// Schedules (`baton.schedules`): stored by `baton schedule add`, fired by the coordinator that holds
/// the lease of the schedule's partition. Times are the database's.
extension Store {
    private static let scheduleColumns = """
        s.name, s.graph::text as graph, s.input::text as input, s.cron, s.every_seconds, s.timezone, s.overlap, s.catch_up, s.paused,
        extract(epoch from s.created_at)::float8 as created_at, extract(epoch from s.last_fired_at)::float8 as last_fired_at,
        extract(epoch from s.next_fire_at)::float8 as next_fire_at, extract(epoch from s.queued_at)::float8 as queued_at,
        s.last_run_id::text as last_run_id, s.skipped, extract(epoch from s.last_skipped_at)::float8 as last_skipped_at,
        s.last_skip_reason, s.last_error, s.partition,
        (select r.status from baton.runs r where r.id = s.last_run_id limit 1) as last_run_status
        """

    /// Stores a new schedule (its times left for the firing coordinator to compute); throws
    /// `ScheduleExists` if the name is taken. Returns it as stored.
    public func addSchedule(_ schedule: ScheduleRow) throws -> ScheduleRow {
        let r = try connection.query(
            """
            insert into baton.schedules (name, graph, input, cron, every_seconds, timezone, overlap, catch_up, partition)
            select $1, $2::jsonb, $3::jsonb, $4, $5::float8, $6, $7, $8,
                   baton.schedule_partition($1, greatest(1, (select count(*) from baton.partitions)::int))
            on conflict (name) do nothing
            returning name
            """,
            [
                schedule.name, schedule.graph.serialized(), schedule.input?.serialized(), schedule.cron, schedule.everySeconds.map { "\($0)" },
                schedule.timezone, schedule.overlap.rawValue, schedule.catchUp.rawValue,
            ])
        guard r.rowCount == 1 else { throw ScheduleExists(name: schedule.name) }
        return try self.schedule(named: schedule.name)!
    }

    /// Every schedule, by name.
    public func schedules() throws -> [ScheduleRow] {
        let r = try connection.query("select \(Self.scheduleColumns) from baton.schedules s order by s.name")
        return try (0..<r.rowCount).map { try Self.scheduleRow(r, $0) }
    }

    /// The schedule named `name`, or nil.
    public func schedule(named name: String) throws -> ScheduleRow? {
        let r = try connection.query("select \(Self.scheduleColumns) from baton.schedules s where s.name = $1", [name])
        return r.rowCount == 0 ? nil : try Self.scheduleRow(r, 0)
    }

    /// Pauses or resumes; false if there is no such schedule. Resuming starts again from now: the
    /// times due while paused are not caught up.
    public func setSchedulePaused(_ name: String, _ paused: Bool) throws -> Bool {
        try connection.execute(
            """
            update baton.schedules set paused = $2::boolean,
                next_fire_at = case when $2::boolean then next_fire_at else null end,
                queued_at = case when $2::boolean then queued_at else null end
            where name = $1
            """, [name, paused ? "true" : "false"]) == 1
    }

    /// Removes a schedule (its runs stay); false if there was none.
    public func deleteSchedule(_ name: String) throws -> Bool {
        try connection.execute("delete from baton.schedules where name = $1", [name]) == 1
    }

    /// The newest `limit` runs a schedule fired (or that were triggered), newest first; not those of
    /// an earlier schedule of the same name (submitted before this one was added).
    public func scheduleRuns(_ name: String, limit: Int = 20) throws -> [ScheduleRun] {
        let r = try connection.query(
            """
            select r.id::text as id, r.status, k.key, extract(epoch from r.submitted_at)::float8 as submitted_at
            from baton.idempotency_keys k join baton.runs r on r.id = k.run_id and r.submitted_at = k.run_submitted_at
            where starts_with(k.key, $1)
              and r.submitted_at >= coalesce((select s.created_at from baton.schedules s where s.name = $3), '-infinity')
            order by r.submitted_at desc limit $2::int
            """, [ScheduleRow.keyPrefix(name), String(limit), name])
        return (0..<r.rowCount).map {
            ScheduleRun(
                id: r[row: $0, column: "id"] ?? "", status: RunStatus(rawValue: r[row: $0, column: "status"] ?? "") ?? .pending,
                key: r[row: $0, column: "key"] ?? "", submittedAt: r[row: $0, column: "submitted_at"].flatMap(Double.init) ?? 0)
        }
    }

    /// The database's clock now, in seconds since the epoch.
    public func databaseNow() throws -> Double {
        try connection.query("select extract(epoch from clock_timestamp())::float8 as now")[row: 0, column: "now"].flatMap(Double.init) ?? 0
    }

    /// The schedules `coordinator` must look at now: not paused, in a partition whose lease it holds,
    /// and due (or new, or with a time waiting for its previous run). With the database's time.
    public func dueSchedules(coordinator: String) throws -> (now: Double, schedules: [ScheduleRow]) {
        let r = try connection.query(
            """
            select \(Self.scheduleColumns), extract(epoch from clock_timestamp())::float8 as now
            from baton.schedules s join baton.partitions p on p.partition = s.partition
            where not s.paused and p.owner = $1 and p.lease_until > now()
              and (s.next_fire_at is null or s.next_fire_at <= clock_timestamp() or s.queued_at is not null)
            order by s.name
            """, [coordinator])
        let now = r.rowCount > 0 ? r[row: 0, column: "now"].flatMap(Double.init) ?? 0 : try databaseNow()
        return (now, try (0..<r.rowCount).map { try Self.scheduleRow(r, $0) })
    }

    /// Stores a step's outcome, if the schedule is still as it was read (`expectedNext`): its new
    /// next and queued times, the last time fired and run, skips and an error. False if another
    /// writer changed it first (a resume, a delete, another coordinator), which is harmless: every
    /// firing's run is keyed by its due time.
    public func recordScheduleStep(
        _ name: String, expectedNext: Double?, step: ScheduleStep, lastFired: Double?, lastRunID: String?, error: String?
    ) throws -> Bool {
        let skip = step.skipped.last
        return try connection.execute(
            """
            update baton.schedules set next_fire_at = to_timestamp($3::float8), queued_at = to_timestamp($4::float8),
                last_fired_at = coalesce(to_timestamp($5::float8), last_fired_at), last_run_id = coalesce($6::uuid, last_run_id),
                skipped = skipped + $7::bigint, last_skipped_at = coalesce(to_timestamp($8::float8), last_skipped_at),
                last_skip_reason = coalesce($9, last_skip_reason), last_error = $10
            where name = $1 and not paused
              and case when $2::float8 is null then next_fire_at is null
                       else abs(extract(epoch from next_fire_at) - $2::float8) < 0.0005 end
            """,
            [
                name, expectedNext.map { "\($0)" }, step.state.nextDue.map { "\($0)" }, step.state.queued.map { "\($0)" },
                lastFired.map { "\($0)" }, lastRunID, String(step.skipped.count + step.uncounted), skip.map { "\($0.due)" },
                skip.map(\.reason), error,
            ]) == 1
    }

    /// Records that `runID` is the schedule's latest run (a `trigger`): overlap rules count it.
    public func setScheduleLastRun(_ name: String, runID: String) throws {
        _ = try connection.execute("update baton.schedules set last_run_id = $2::uuid where name = $1", [name, runID])
    }

    private static func scheduleRow(_ r: PGResult, _ i: Int) throws -> ScheduleRow {
        func double(_ column: String) -> Double? { r[row: i, column: column].flatMap(Double.init) }
        let graph = try JSONParser.parse(r[row: i, column: "graph"] ?? "{}")
        let input = try r[row: i, column: "input"].map { try JSONParser.parse($0) }
        var row = ScheduleRow(
            name: r[row: i, column: "name"] ?? "", graph: graph, input: input, cron: r[row: i, column: "cron"],
            everySeconds: double("every_seconds"), timezone: r[row: i, column: "timezone"] ?? "UTC",
            overlap: OverlapRule(rawValue: r[row: i, column: "overlap"] ?? "") ?? .skip,
            catchUp: CatchUpRule(rawValue: r[row: i, column: "catch_up"] ?? "") ?? .last)
        row.paused = r.bool(i, "paused") ?? false
        row.createdAt = double("created_at") ?? 0
        row.lastFiredAt = double("last_fired_at")
        row.nextFireAt = double("next_fire_at")
        row.queuedAt = double("queued_at")
        row.lastRunID = r[row: i, column: "last_run_id"]
        row.lastRunStatus = r[row: i, column: "last_run_status"].flatMap(RunStatus.init(rawValue:))
        row.skipped = r.int(i, "skipped") ?? 0
        row.lastSkippedAt = double("last_skipped_at")
        row.lastSkipReason = r[row: i, column: "last_skip_reason"]
        row.lastError = r[row: i, column: "last_error"]
        row.partition = r.int(i, "partition") ?? 0
        return row
    }
}
