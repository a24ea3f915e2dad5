import BatonPostgres
import Foundation

/// Live coordinators: each announces itself every round, with its session, so the others know how
/// many share the partitions (and that a crashed one's partitions are free); `baton coordinators`
/// reads them.
extension Store {
    /// Records (or refreshes) `coordinator`'s row with this connection's session; forgets coordinators
    /// silent for three of their leases. Returns the ids of the live ones (announced within their
    /// lease, session not ended), this one included, sorted.
    public func announce(_ coordinator: CoordinatorAnnouncement) throws -> [String] {
        let r = try connection.query(
            """
            with me as (
                insert into baton.coordinators (id, host, pid, lease_seconds, runs, nodes_per_second, session, last_seen_at)
                values ($1, $2, $3::int, $4::float8, $5::int, $6::float8, pg_backend_pid(), now())
                on conflict (id) do update set lease_seconds = excluded.lease_seconds, runs = excluded.runs,
                    nodes_per_second = excluded.nodes_per_second, session = excluded.session, last_seen_at = now()
                returning id
            ), forgotten as (
                delete from baton.coordinators where id <> $1 and last_seen_at < now() - make_interval(secs => 3 * lease_seconds)
            )
            select id from me
            union
            select id from baton.coordinators
            where id <> $1 and last_seen_at >= now() - make_interval(secs => lease_seconds) and not baton.owner_gone(id)
            order by id
            """,
            [
                coordinator.id, coordinator.host, String(coordinator.pid), String(coordinator.leaseSeconds), String(coordinator.runs),
                String(coordinator.nodesPerSecond),
            ])
        return (0..<r.rowCount).compactMap { r[row: $0, column: "id"] }
    }

    /// Removes `id`'s row (a coordinator that stopped cleanly, after handing its partitions over).
    public func withdraw(coordinator id: String) throws {
        try connection.execute("delete from baton.coordinators where id = $1", [id])
    }

    /// Every live coordinator with the partitions it holds, by id.
    public func coordinators() throws -> [CoordinatorRow] {
        let r = try connection.query(
            """
            select c.id, c.host, c.pid, c.started_at::text as started_at, extract(epoch from now() - c.last_seen_at)::float8 as age,
                   c.runs, c.nodes_per_second,
                   coalesce((select json_agg(json_build_object('partition', p.partition, 'epoch', p.epoch) order by p.partition)
                             from baton.partitions p
                             where p.owner = c.id and p.lease_until > now()), '[]')::text as held
            from baton.coordinators c
            where c.last_seen_at >= now() - make_interval(secs => c.lease_seconds) and not baton.owner_gone(c.id)
            order by c.id
            """)
        return try (0..<r.rowCount).map { i in
            CoordinatorRow(
                id: r[row: i, column: "id"]!, host: r[row: i, column: "host"]!, pid: r.int(i, "pid") ?? 0,
                startedAt: r[row: i, column: "started_at"]!, secondsSinceSeen: Double(r[row: i, column: "age"] ?? "0") ?? 0,
                runs: r.int(i, "runs") ?? 0, nodesPerSecond: Double(r[row: i, column: "nodes_per_second"] ?? "0") ?? 0,
                partitions: try JSONDecoder().decode([CoordinatorRow.Held].self, from: Data((r[row: i, column: "held"] ?? "[]").utf8)))
        }
    }
}
