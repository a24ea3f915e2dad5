import Baton
import BatonStore
import Foundation

/// Schedules in the memory twin, as `Store+Schedules` keeps them: fired by the coordinator that
/// holds the lease of the schedule's partition, each due time a run under its idempotency key.
extension MemoryStore: ScheduleStore {
    /// Stores a schedule as `baton schedule add` does, created now. Its partition is a hash of its
    /// name (FNV-1a here; the database uses MD5: only that it is fixed by the name matters).
    public func addSchedule(_ schedule: ScheduleRow) {
        var row = schedule
        row.createdAt = now.timeIntervalSince1970
        var hash: UInt32 = 2_166_136_261
        for byte in schedule.name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        row.partition = Int(hash % UInt32(max(1, tables.partitions.count)))
        tables.schedules[row.name] = row
    }

    /// A stored schedule, by name.
    public func schedule(named name: String) -> ScheduleRow? { tables.schedules[name] }

    /// The first due time of schedule `name`, as its first step set it: a new schedule starts from the
    /// time of that step (`ScheduleDecision.step`), so no earlier time is missed. Nil before it.
    public func firstDue(ofSchedule name: String) -> Double? { tables.scheduleFirstDue[name] }

    /// Idempotency keys that start with `prefix`, with their runs, sorted by key.
    public func idempotencyKeys(startingWith prefix: String) -> [(key: String, runID: String)] {
        tables.idempotencyKeys.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    public func dueSchedules(coordinator: String) throws -> (now: Double, schedules: [ScheduleRow]) {
        let now = self.now
        let held = Set(tables.partitions.filter { $0.owner == coordinator && ($0.leaseUntil.map { $0 > now } ?? false) }.map(\.partition))
        let t = now.timeIntervalSince1970
        let due = tables.schedules.values.filter { s in
            !s.paused && held.contains(s.partition) && (s.nextFireAt.map { $0 <= t } ?? true || s.queuedAt != nil)
        }.sorted { $0.name < $1.name }.map { row in
            var row = row
            row.lastRunStatus = row.lastRunID.flatMap { tables.runs[$0]?.status }
            return row
        }
        return (t, due)
    }

    public func submitScheduled(_ graph: Graph, idempotencyKey: String) throws -> SubmittedRun {
        if let existing = tables.idempotencyKeys[idempotencyKey] {
            return SubmittedRun(id: existing, status: tables.runs[existing]?.status ?? .pending, created: false)
        }
        let id = submit(graph)
        tables.idempotencyKeys[idempotencyKey] = id
        return SubmittedRun(id: id, status: .pending, created: true)
    }

    public func recordScheduleStep(
        _ name: String, expectedNext: Double?, step: ScheduleStep, lastFired: Double?, lastRunID: String?, error: String?
    ) throws -> Bool {
        guard var row = tables.schedules[name], !row.paused else { return false }
        switch (row.nextFireAt, expectedNext) {
        case (nil, nil):
            if tables.scheduleFirstDue[name] == nil { tables.scheduleFirstDue[name] = step.state.nextDue }
        case let (.some(a), .some(b)) where abs(a - b) < 0.0005: break
        default: return false
        }
        row.nextFireAt = step.state.nextDue
        row.queuedAt = step.state.queued
        if let lastFired { row.lastFiredAt = lastFired }
        if let lastRunID { row.lastRunID = lastRunID }
        row.skipped += step.skipped.count + step.uncounted
        if let skip = step.skipped.last {
            row.lastSkippedAt = skip.due
            row.lastSkipReason = skip.reason
        }
        row.lastError = error
        tables.schedules[name] = row
        return true
    }
}
