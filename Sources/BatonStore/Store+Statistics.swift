import BatonPostgres

extension Store {
    /// The rows written (inserted, updated or deleted) in schema `baton`, as PostgreSQL's statistics
    /// show them now: `sum(n_tup_ins + n_tup_upd + n_tup_del)` over `pg_stat_user_tables`. A backend
    /// flushes its counts some time after its commits (at most once a second, an idle one after
    /// PGSTAT_IDLE_INTERVAL), so a reader waits for the sum to settle. Each call is a transaction of
    /// its own, so the statistics snapshot is never a stale one. Partition leases and coordinator
    /// announcements are left out: they are written every few seconds, whatever the load.
    public func rowsWritten() throws -> Int64 {
        try connection.query(
            """
            select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint as n
            from pg_stat_user_tables
            where schemaname = 'baton' and relname not in ('partitions', 'coordinators')  -- leases and announcements: per second, not per node
            """
        ).int64(0, "n") ?? 0
    }

    /// `count` one-row inserts, each its own commit, on a table made (outside schema `baton`) and
    /// dropped here: the seconds each took, sorted. The benchmarks' yardstick: a PostgreSQL commit
    /// measured beside what they time.
    public func commitTimes(_ count: Int) throws -> [Double] {
        _ = try connection.execute("create table if not exists public.bench_commit (x int)")
        defer { _ = try? connection.execute("drop table if exists public.bench_commit") }
        var seconds: [Double] = []
        for i in 0..<count {
            let start = ContinuousClock.now
            _ = try connection.execute("insert into public.bench_commit values ($1::int)", [String(i)])
            let elapsed = (ContinuousClock.now - start).components
            seconds.append(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }
        return seconds.sorted()
    }

    /// The slots each of these worker processes registered with, from its latest heartbeat row, most
    /// recently seen first (at most one row per process id given).
    public func workerSlots(ofPIDs pids: [Int]) throws -> [Int] {
        let r = try connection.query(
            "select slots from baton.workers where pid = any($1::int[]) order by last_seen_at desc limit $2",
            [PGArray.literal(pids.map(String.init)), String(pids.count)])
        return (0..<r.rowCount).compactMap { r.int($0, "slots") }
    }

    /// The history's rows and size on disk (for the soak benchmark and an operator's check of retention).
    public func historySize() throws -> HistorySize {
        let r = try connection.query(
            """
            select (select count(*) from baton.runs) as runs, (select count(*) from baton.nodes) as nodes,
                   (select coalesce(sum(pg_total_relation_size(p.relid)), 0)
                    from unnest(array['baton.runs', 'baton.nodes', 'baton.events', 'baton.edges']::regclass[]) as t(parent)
                    cross join lateral pg_partition_tree(t.parent) p) / 1048576.0 as mb
            """)
        return HistorySize(
            runs: r.int(0, "runs") ?? 0, nodes: r.int(0, "nodes") ?? 0, megabytes: Double(r[row: 0, column: "mb"] ?? "") ?? .nan)
    }
}
