import BatonPostgres
import Foundation

/// Retention: finished runs older than a cutoff go, with their nodes, edges, events, holds and requests.
/// A past time partition whose runs all qualify is dropped whole; otherwise runs are deleted (the
/// trigger `runs_forget` takes their rows along) in batches of their own transactions. A run still
/// going is never touched.
extension Store {
    /// A run `prune` removes: finished, more than `$1` seconds ago on the database's clock.
    static let finished = "status in ('succeeded', 'failed', 'cancelled') and finished_at < now() - make_interval(secs => $1::float8)"
    static let finishedBefore = "where \(finished)"
    /// One pruner at a time, whole partitions or rows: false when another holds it.
    static let pruneLock = "select pg_try_advisory_xact_lock(727275) as ok"

    /// Removes finished runs (succeeded, failed, cancelled) that ended more than `olderThan` seconds
    /// ago on the database's clock, and output-cache rows older than `cacheOlderThan` (nil: keep
    /// them). With `dryRun`, only counts. Only one pruner works at a time (an advisory lock): a
    /// second one returns an empty report at once.
    public func prune(olderThan: Double, cacheOlderThan: Double?, dryRun: Bool, batch: Int = 500) throws -> PruneReport {
        var report = PruneReport()
        let age = String(olderThan)
        var whole: [HistoryPartition] = []
        for partition in try historyPartitions() where partition.to <= Date().timeIntervalSince1970 {
            let outcome = try drop(partition, olderThan: age, dryRun: dryRun)
            if outcome.busy {
                report.busy = true
                return report
            }
            guard let counts = outcome.counts else { continue }
            whole.append(partition)
            report.partitions.append(partition.suffix)
            report.add(runs: counts.runs, nodes: counts.nodes, events: counts.events)
        }
        if dryRun {
            // The runs of partitions counted whole above are not counted again.
            let r = try connection.query(
                """
                with doomed as (
                    select id from baton.runs
                    \(Self.finishedBefore)
                    and not exists (
                        select 1 from unnest($3::float8[], $4::float8[]) as w(from_at, to_at)
                        where submitted_at >= to_timestamp(w.from_at) and submitted_at < to_timestamp(w.to_at)))
                select (select count(*) from doomed) as runs,
                       (select count(*) from baton.nodes where run_id in (select id from doomed)) as nodes,
                       (select count(*) from baton.events where run_id in (select id from doomed)) as events,
                       (select count(*) from baton.cache where $2::float8 is not null
                            and succeeded_at < now() - make_interval(secs => $2::float8)) as cache
                """,
                [
                    age, cacheOlderThan.map { String($0) }, PGArray.literal(whole.map { String($0.from) }),
                    PGArray.literal(whole.map { String($0.to) }),
                ])
            report.add(runs: r.int(0, "runs") ?? 0, nodes: r.int(0, "nodes") ?? 0, events: r.int(0, "events") ?? 0)
            report.cacheRows = r.int(0, "cache") ?? 0
            return report
        }
        while true {
            let done: (runs: Int, nodes: Int, events: Int, locked: Bool) = try connection.transaction { c in
                guard try c.query(Self.pruneLock).bool(0, "ok") == true else { return (0, 0, 0, true) }
                let r = try c.query(
                    """
                    with doomed as (
                        select id from baton.runs
                        \(Self.finishedBefore)
                        order by finished_at limit $2::int for update skip locked
                    ), counted as (
                        select (select count(*) from baton.nodes where run_id in (select id from doomed)) as nodes,
                               (select count(*) from baton.events where run_id in (select id from doomed)) as events
                    ), gone as (
                        delete from baton.runs where id in (select id from doomed) returning id
                    )
                    select (select count(*) from gone) as runs, nodes, events from counted
                    """, [age, String(batch)])
                return (r.int(0, "runs") ?? 0, r.int(0, "nodes") ?? 0, r.int(0, "events") ?? 0, false)
            }
            if done.locked {
                report.busy = true
                return report
            }
            report.add(runs: done.runs, nodes: done.nodes, events: done.events)
            if done.runs < batch { break }
        }
        if let cacheOlderThan {
            report.cacheRows = try connection.execute(
                "delete from baton.cache where succeeded_at < now() - make_interval(secs => $1::float8)", [String(cacheOlderThan)])
        }
        return report
    }

    /// Drops a past partition whole if every run in it finished more than `olderThan` seconds ago
    /// (with `dryRun`, only says whether it would), in one transaction that locks its runs first.
    /// `counts` is nil when it stays: a run in it is young or going, or its tables were busy for
    /// longer than a lock timeout (its rows are pruned one by one then, or at the next turn).
    private func drop(
        _ partition: HistoryPartition, olderThan age: String, dryRun: Bool
    ) throws -> (
        counts: (runs: Int, nodes: Int, events: Int)?, busy: Bool
    ) {
        // The suffix comes from `baton.history_partitions`, which only Baton writes; checked anyway, as it is spliced in.
        guard partition.suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return (nil, false) }
        let runs = "baton.runs_\(partition.suffix)", nodes = "baton.nodes_\(partition.suffix)"
        let edges = "baton.edges_\(partition.suffix)", events = "baton.events_\(partition.suffix)"
        do {
            return try connection.transaction { c in
                guard try c.query(Self.pruneLock).bool(0, "ok") == true else { return (nil, true) }
                try c.execute("set local lock_timeout = '2s'")
                // Dropping a partition locks its parent anyway: all four at once, in the order a coordinator's commit
                // takes them, before the check, so no run of the partition changes (a retry, a late report) between
                // the check and the drop, and no lock is upgraded half-way.
                if !dryRun { try c.execute("lock table baton.nodes, baton.edges, baton.runs, baton.events in access exclusive mode") }
                let r = try c.query(
                    """
                    select count(*) as runs,
                           count(*) filter (where not (\(Self.finished))) as kept,
                           (select count(*) from \(nodes)) as nodes, (select count(*) from \(events)) as events
                    from \(runs)
                    """, [age])
                guard r.int(0, "kept") == 0 else { return (nil, false) }
                let counts = (runs: r.int(0, "runs") ?? 0, nodes: r.int(0, "nodes") ?? 0, events: r.int(0, "events") ?? 0)
                if dryRun { return (counts, false) }
                // Holds, requests and idempotency keys are not partitioned: theirs go by row (dropping fires no trigger).
                try c.execute("delete from baton.holds where run_id in (select id from \(runs))")
                try c.execute("delete from baton.requests where run_id in (select id from \(runs))")
                try c.execute(
                    "delete from baton.idempotency_keys where run_id in (select id from \(runs))")
                try c.execute("drop table \(events), \(edges), \(nodes)")
                try c.execute("alter table baton.runs detach partition \(runs)")
                try c.execute("drop table \(runs)")
                try c.execute("delete from baton.history_partitions where suffix = $1", [partition.suffix])
                return (counts, false)
            }
        } catch let error as PostgresError where error.code == .lockNotAvailable || error.code == .deadlockDetected {
            return (nil, false)
        }
    }
}
