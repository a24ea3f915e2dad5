import Baton

extension ScheduleRow {
    /// The schedule as `--json` and the dashboard's API give it: times as ISO-8601 UTC.
    public var json: JSON {
        func time(_ t: Double?) -> JSON { t.map { .string(CivilDate.iso8601($0)) } ?? .null }
        return .object(
            JSONObject([
                ("name", .string(name)), ("cron", cron.map(JSON.string) ?? .null),
                ("every", everySeconds.map { .string(DurationText.format($0)) } ?? .null),
                ("timezone", .string(timezone)), ("overlap", .string(overlap.rawValue)), ("catch_up", .string(catchUp.rawValue)),
                ("paused", .bool(paused)), ("created_at", time(createdAt)), ("last_fired_at", time(lastFiredAt)),
                ("next_fire_at", time(nextFireAt)), ("queued_at", time(queuedAt)), ("last_run_id", lastRunID.map(JSON.string) ?? .null),
                ("last_run_status", lastRunStatus.map { .string($0.rawValue) } ?? .null), ("skipped", .int(Int64(skipped))),
                ("last_skip_reason", lastSkipReason.map(JSON.string) ?? .null), ("last_error", lastError.map(JSON.string) ?? .null),
                ("partition", .int(Int64(partition))), ("input", input ?? .null),
            ]))
    }
}
