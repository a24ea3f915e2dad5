import Baton
import BatonPostgres

/// A schedule fired by hand (`baton schedule trigger`, `POST /schedules/{name}/trigger`).
public struct ScheduleTriggered: Sendable, Equatable {
    public let runID: String
    /// `schedule:NAME:trigger:TIME`, the run's idempotency key.
    public let key: String
}

/// The writes on schedules that the CLI and the API share, so both do and say the same.
extension Store {
    /// Stores `schedule` as `addSchedule` does, with its audit entry in the same transaction.
    public func addSchedule(_ schedule: ScheduleRow, audit: AuditEntry) throws -> ScheduleRow {
        try connection.transaction { _ in
            let stored = try addSchedule(schedule)
            try recordAudit(audit, status: 201)
            return stored
        }
    }

    /// Fires schedule `name` now, outside its times: its stored graph with its stored input, under
    /// the key `schedule:NAME:trigger:TIME` (the database's time), recorded as its latest run so the
    /// overlap rule counts it. Nil when there is no such schedule; throws `ScheduleInputError` when
    /// its graph no longer validates (a newer baton's graph, or limits lowered since).
    public func triggerSchedule(_ name: String, limits: GraphLimits, audit: AuditEntry? = nil) throws -> ScheduleTriggered? {
        guard let schedule = try schedule(named: name) else { return nil }
        let graph: Graph
        do { graph = try GraphDecoder(limits: limits).decode(schedule.graph, input: schedule.input, defaultName: schedule.name) } catch {
            throw ScheduleInputError(
                "schedule \(name): the stored graph no longer validates: \(error.problems.map(\.description).joined(separator: "; "))")
        }
        let key = ScheduleRow.keyPrefix(name) + "trigger:" + CivilDate.iso8601(try databaseNow())
        let run = try submit(graph, idempotencyKey: key)
        try setScheduleLastRun(name, runID: run.id)
        if let audit { try recordAudit(audit, status: 201) }
        return ScheduleTriggered(runID: run.id, key: key)
    }

    /// Pauses or resumes schedule `name` as `setSchedulePaused` does, audited; the schedule after, or
    /// nil when there is none.
    public func setSchedulePaused(_ name: String, _ paused: Bool, audit: AuditEntry) throws -> ScheduleRow? {
        try connection.transaction { _ in
            guard try setSchedulePaused(name, paused) else { return nil }
            try recordAudit(audit, status: 200)
            return try schedule(named: name)
        }
    }

    /// Deletes schedule `name` as `deleteSchedule` does, audited; false when there was none.
    public func deleteSchedule(_ name: String, audit: AuditEntry) throws -> Bool {
        try connection.transaction { _ in
            guard try deleteSchedule(name) else { return false }
            try recordAudit(audit, status: 204)
            return true
        }
    }
}
