import Baton
import BatonPostgres
import Foundation

extension Store {
    /// The run's nodes waiting for a grant that need a rate key, per key, with the key's state.
    public func rateWaits(ofRun id: String) throws -> [RateWait] {
        let r = try connection.query(
            """
            select r.key, r."limit", r.per_seconds, r.used, extract(epoch from r.next_token_at)::float8 as next_token_at,
                   array_to_json(array_agg(h.node_key order by h.priority desc, h.seq))::text as nodes
            from baton.holds h
            cross join lateral jsonb_array_elements(h.claims) as c
            join baton.rates r on c->>'name' = 'rate/' || r.key
            where h.run_id = $1::uuid and not h.granted
            group by r.key, r."limit", r.per_seconds, r.used, r.next_token_at
            order by r.key
            """, [id])
        return try (0..<r.rowCount).map { i in
            RateWait(
                key: r[row: i, column: "key"] ?? "", limit: Int(r.int64(i, "limit") ?? 0),
                perSeconds: r[row: i, column: "per_seconds"].flatMap(Double.init) ?? 0, used: Int(r.int64(i, "used") ?? 0),
                nodes: try JSONParser.parse(r[row: i, column: "nodes"] ?? "[]").arrayValue?.compactMap(\.stringValue) ?? [],
                nextTokenAt: r[row: i, column: "next_token_at"].flatMap(Double.init))
        }
    }
}
