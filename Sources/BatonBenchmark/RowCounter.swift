import BatonStore
import Foundation

/// Counts the PostgreSQL rows written (inserted, updated or deleted) in schema `baton`.
///
/// It reads `sum(n_tup_ins + n_tup_upd + n_tup_del)` over `pg_stat_user_tables`, not
/// `pg_stat_database.tup_*`: both come from the same per-backend counters, but the database's
/// also count catalog and temporary-table rows, and this one is limited to Baton's tables.
/// Since PostgreSQL 15 a backend flushes its counters to shared memory after a commit at most
/// once a second, and an idle backend with pending counts only after PGSTAT_IDLE_INTERVAL
/// (10 s); `pg_stat_force_next_flush()` acts on the calling backend only, so it cannot make the
/// coordinator's counts visible. Hence ``settled(quietRows:)``: wait until the sum has stayed
/// (nearly) still for longer than that interval, with a deadline.
final class RowCounter {
    private let store: Store

    init(databaseURL: String) throws {
        store = try Store(url: databaseURL)  // a connection of its own, beside the cluster's
    }

    /// The current sum, as visible now.
    func current() throws -> Int64 { try store.rowsWritten() }

    /// The sum once every backend's writes so far are visible: it moved by at most `quietRows`
    /// (worker heartbeats keep updating `baton.workers`) over the last `window` seconds. After
    /// `deadline` seconds, the last reading and false (the count may be short).
    func settled(quietRows: Int64, window: Double = 11, deadline: Double = 60) throws -> (rows: Int64, settled: Bool) {
        let start = Date()
        var readings: [(at: Date, rows: Int64)] = []
        while true {
            let now = Date()
            let rows = try current()
            readings.append((now, rows))
            readings.removeAll { now.timeIntervalSince($0.at) > window + 1 }
            if let oldest = readings.first, now.timeIntervalSince(oldest.at) >= window, rows - oldest.rows <= quietRows {
                return (rows, true)
            }
            if now.timeIntervalSince(start) > deadline { return (rows, false) }
            usleep(500_000)
        }
    }

    /// Deletes the runs earlier benchmarks left (their names start with `bench-`), with their
    /// nodes, edges and events: unfinished ones would be scheduled again by the coordinator and
    /// flood the broker, finished ones slow the tables down. Returns how many.
    func dropBenchmarkRuns() throws -> Int {
        try store.deleteRuns(namePrefix: "bench-")
    }

    /// Forgets every registered worker: before the benchmark starts a cluster, any left are gone,
    /// and a coordinator would otherwise expire their leases in the middle of a measurement.
    func dropWorkers() throws {
        try store.deleteWorkers()
    }

    /// How many slots each of these worker processes registered with (from its heartbeats).
    func slots(ofWorkerPIDs pids: [Int]) throws -> [Int] {
        try store.workerSlots(ofPIDs: pids)
    }

    func close() { store.close() }
}
