import Baton
import BatonPostgres
import Foundation

extension Store {
    /// Channel on which a NOTIFY announces a new request (payload: the run id).
    public static let requestsChannel = "baton_requests"

    /// Records a request and wakes the coordinators.
    @discardableResult
    public func request(_ kind: RunRequest.Kind, runID: String, node: String? = nil, reason: String? = nil) throws -> Int {
        try connection.transaction { c in
            let r = try c.query(
                """
                insert into baton.requests (run_id, kind, node_key, reason) values ($1::uuid, $2, $3, $4) returning id
                """, [runID, kind.rawValue, node, reason])
            try c.execute("select pg_notify($1, $2)", [Store.requestsChannel, runID])
            return r.int(0, "id") ?? 0
        }
    }

    /// Requests not yet handled, oldest first.
    public func openRequests() throws -> [RunRequest] {
        let r =
            if let fence {
                try connection.query(
                    """
                    select id, run_id::text as run_id, kind, node_key, reason, value, \(Self.requestedAtColumn) from baton.requests
                    where handled_at is null and baton.partition_of(run_id, $1::int) = any($2::int[])
                    order by id limit 1000
                    """, [String(fence.count), fence.heldParameter])
            } else {
                try connection.query(
                    """
                    select id, run_id::text as run_id, kind, node_key, reason, value, \(Self.requestedAtColumn) from baton.requests
                    where handled_at is null order by id limit 1000
                    """)
            }
        return (0..<r.rowCount).compactMap { i in
            guard let kind = RunRequest.Kind(rawValue: r[row: i, column: "kind"] ?? "") else { return nil }
            return RunRequest(
                id: r.int(i, "id") ?? 0, runID: r[row: i, column: "run_id"]!, kind: kind,
                node: r[row: i, column: "node_key"], reason: r[row: i, column: "reason"],
                value: r[row: i, column: "value"].flatMap { try? JSONParser.parse($0, maxDepth: 1024) },
                requestedAt: r[row: i, column: "requested_epoch"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// A request's time as seconds since 1970 (`requested_epoch`), read without parsing a timestamp's text.
    static let requestedAtColumn = "extract(epoch from requested_at)::float8 as requested_epoch"

    /// Whether a request has been handled yet.
    public func requestHandled(_ id: Int) throws -> Bool {
        try connection.query("select handled_at is not null as done from baton.requests where id = $1::bigint", [String(id)]).bool(0, "done") ?? false
    }
}
