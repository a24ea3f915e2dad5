import Baton
import BatonPostgres

extension Store {
    /// Runs newest first (by submission time, then id), a page at a time by keyset, however deep:
    /// only those with `status`, whose name contains `nameContains` (case-insensitive, plain text),
    /// whose idempotency key starts with `keyPrefix` (a schedule's runs), submitted at or after
    /// `since` (seconds since the epoch), after `mark`. The mark of the page's last run if more follow.
    public func runPage(
        status: RunStatus?, nameContains: String?, keyPrefix: String?, since: Double?, after mark: RunPageMark?, limit: Int
    ) throws -> (rows: [RunRow], next: RunPageMark?) {
        let r = try connection.query(
            """
            select \(Store.runColumns), (extract(epoch from r.submitted_at) * 1000000)::bigint as micros
            from (select r.id, r.submitted_at from baton.runs r
                  where ($1::text is null or r.status = $1)
                    and ($2::text is null or strpos(lower(r.name), lower($2)) > 0)
                    and ($3::text is null or exists (select 1 from baton.idempotency_keys k
                        where k.run_id = r.id and k.run_submitted_at = r.submitted_at and starts_with(k.key, $3)))
                    and ($4::float8 is null or r.submitted_at >= to_timestamp($4::float8))
                    and ($5::bigint is null or r.submitted_at < 'epoch'::timestamptz + $5::bigint * interval '1 microsecond'
                         or (r.submitted_at = 'epoch'::timestamptz + $5::bigint * interval '1 microsecond' and r.id > $6::uuid))
                  order by r.submitted_at desc, r.id limit $7::int) page
            join baton.runs r on r.id = page.id and r.submitted_at = page.submitted_at
            order by page.submitted_at desc, page.id
            """,
            [
                status?.rawValue, nameContains, keyPrefix, since.map { String($0) }, mark.map { String($0.micros) }, mark?.id,
                String(limit + 1),
            ])
        let rows = (0..<min(r.rowCount, limit)).map { runRow(r, $0) }
        guard r.rowCount > limit, let last = rows.last else { return (rows, nil) }
        return (rows, RunPageMark(micros: Int64(r[row: limit - 1, column: "micros"] ?? "") ?? 0, id: last.id))
    }
}
