import Baton
import BatonPostgres
import Foundation

/// `baton cancel|retry --where`: the runs a `RunFilter` matches that the action can take, counted
/// (`--dry-run`) or given the same request `baton cancel RUN` / `baton retry RUN` inserts, in batches
/// of their own transactions, oldest first by keyset so no run is asked twice.
extension Store {
    /// How many runs `action` would ask of, and the first `show` of them, oldest first.
    public func bulkPreview(_ action: BulkAction, _ filter: RunFilter, show: Int = 10) throws -> (count: Int, runs: [RunRow]) {
        let counted = filter.condition(first: 2)
        let count = try connection.query(
            "select count(*) as n from baton.runs r where r.status = any($1::text[]) and \(counted.sql)", statuses(action) + counted.parameters)
        let (condition, parameters) = filter.condition(first: 3)
        let rows = try connection.query(
            """
            select \(Store.runColumns) from (select r.id, r.submitted_at from baton.runs r where r.status = any($1::text[]) and \(condition)
                                          order by r.submitted_at, r.id limit $2::int) m
            join baton.runs r on r.id = m.id and r.submitted_at = m.submitted_at order by r.submitted_at, r.id
            """, statuses(action) + [String(show)] + parameters)
        return (count.int(0, "n") ?? 0, (0..<rows.rowCount).map { runRow(rows, $0) })
    }

    /// Inserts `action`'s request (with `reason`, for a cancel) for every run the filter matches that
    /// the action can take, `batch` runs a transaction, each batch waking the coordinators; `audit`,
    /// if given, is recorded once at the end with the count in its target. The requests' ids.
    public func bulkRequest(
        _ action: BulkAction, _ filter: RunFilter, reason: String?, batch: Int = 500, audit: AuditEntry? = nil
    ) throws -> (requests: [Int], batches: Int) {
        let (condition, parameters) = filter.condition(first: 5)
        var requests: [Int] = []
        var batches = 0
        var mark: (micros: String, id: String)?
        while true {
            let picked: [(id: String, micros: String, request: Int)] = try connection.transaction { c in
                let r = try c.query(
                    """
                    with picked as (
                        select r.id, r.submitted_at, (extract(epoch from r.submitted_at) * 1000000)::bigint as micros from baton.runs r
                        where r.status = any($1::text[]) and \(condition)
                          and ($2::bigint is null or r.submitted_at > 'epoch'::timestamptz + $2::bigint * interval '1 microsecond'
                               or (r.submitted_at = 'epoch'::timestamptz + $2::bigint * interval '1 microsecond' and r.id > $3::uuid))
                        order by r.submitted_at, r.id limit $4::int),
                    made as (
                        insert into baton.requests (run_id, kind, reason) select id, '\(action.kind.rawValue)', \(action == .cancel ? "$\(5 + parameters.count)" : "null")
                        from picked order by submitted_at, id returning id, run_id)
                    select p.id::text as run_id, p.micros, m.id as request, pg_notify('\(Store.requestsChannel)', p.id::text) is null as told
                    from picked p join made m on m.run_id = p.id order by p.submitted_at, p.id
                    """,
                    statuses(action) + [mark?.micros, mark?.id, String(batch)] + parameters + (action == .cancel ? [reason] : []))
                return (0..<r.rowCount).map { (r[row: $0, column: "run_id"]!, r[row: $0, column: "micros"]!, r.int($0, "request") ?? 0) }
            }
            guard let last = picked.last else { break }
            batches += 1
            requests += picked.map(\.request)
            mark = (last.micros, last.id)
            if picked.count < batch { break }
        }
        if let audit {
            try recordAudit(
                AuditEntry(
                    tokenName: audit.tokenName, action: audit.action, target: "\(audit.target ?? filter.text) (\(requests.count) runs)",
                    source: audit.source),
                status: 202)
        }
        return (requests, batches)
    }

    /// How many of the requests `ids` no coordinator has handled yet.
    public func unhandledRequests(_ ids: [Int]) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try connection.query(
            "select count(*) as n from baton.requests where id = any($1::bigint[]) and handled_at is null", [PGArray.literal(ids.map(String.init))]
        ).int(0, "n") ?? 0
    }

    private func statuses(_ action: BulkAction) -> [String?] { [PGArray.literal(action.statuses.map(\.rawValue))] }
}
