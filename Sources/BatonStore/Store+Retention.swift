import BatonPostgres
import Foundation

/// Retention: finished runs older than a cutoff go, with their nodes, edges, events and holds (the
/// foreign keys cascade), in batches of their own transactions; a run still going is never touched.
extension Store {
    /// The runs `prune` removes: finished, more than `$1` seconds ago on the database's clock.
    static let finishedBefore = "where status in ('succeeded', 'failed', 'cancelled') and finished_at < now() - make_interval(secs => $1::float8)"

    /// Removes finished runs (succeeded, failed, cancelled) that ended more than `olderThan` seconds
    /// ago on the database's clock, and output-cache rows older than `cacheOlderThan` (nil: keep
    /// them). With `dryRun`, only counts. Only one pruner works at a time (an advisory lock): a
    /// second one returns an empty report at once.
    public func prune(olderThan: Double, cacheOlderThan: Double?, dryRun: Bool, batch: Int = 500) throws -> PruneReport {
        var report = PruneReport()
        let age = String(olderThan)
        if dryRun {
            let r = try connection.query(
                """
                with doomed as (
                    select id from baton.runs
                    \(Self.finishedBefore))
                select (select count(*) from doomed) as runs,
                       (select count(*) from baton.nodes where run_id in (select id from doomed)) as nodes,
                       (select count(*) from baton.events where run_id in (select id from doomed)) as events,
                       (select count(*) from baton.cache where $2::float8 is not null
                            and succeeded_at < now() - make_interval(secs => $2::float8)) as cache
                """, [age, cacheOlderThan.map { String($0) }])
            report.runs = r.int(0, "runs") ?? 0
            report.nodes = r.int(0, "nodes") ?? 0
            report.events = r.int(0, "events") ?? 0
            report.cacheRows = r.int(0, "cache") ?? 0
            return report
        }
        while true {
            let done: (runs: Int, nodes: Int, events: Int, locked: Bool) = try connection.transaction { c in
                guard try c.query("select pg_try_advisory_xact_lock(727275) as ok").bool(0, "ok") == true else { return (0, 0, 0, true) }
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
            report.runs += done.runs
            report.nodes += done.nodes
            report.events += done.events
            if done.runs < batch { break }
        }
        if let cacheOlderThan {
            report.cacheRows = try connection.execute(
                "delete from baton.cache where succeeded_at < now() - make_interval(secs => $1::float8)", [String(cacheOlderThan)])
        }
        return report
    }
}
