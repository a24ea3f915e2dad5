import Baton
import BatonPostgres
import Foundation

extension Store {
    /// A run's timeline (`RunTimeline`) from its nodes and their events; nil if there is no such run.
    /// While the run goes on, what is still open ends at `now` (seconds since 1970).
    public func timeline(ofRun id: String, now: Double = Date().timeIntervalSince1970) throws -> (run: RunStatus, timeline: RunTimeline)? {
        guard let status = try runStatus(id) else { return nil }
        let n = try connection.query("select key, status from baton.nodes where run_id = $1::uuid order by position", [id])
        let nodes = (0..<n.rowCount).map { (key: n[row: $0, column: "key"]!, status: n[row: $0, column: "status"]!) }
        let timeline = RunTimeline(nodes: nodes, events: try timelineEvents(ofRun: id), now: status.isTerminal ? nil : now)
        return (status, timeline)
    }

    /// A run's node events that the timeline reads (not its progress and log lines), oldest first.
    public func timelineEvents(ofRun id: String) throws -> [TimelineEvent] {
        let r = try connection.query(
            """
            select node_key, kind, extract(epoch from at)::float8 as at, detail->>'attempt' as attempt,
                   extract(epoch from (detail->>'due_at')::timestamptz)::float8 as due,
                   coalesce(detail->>'error' like 'timed out%', false) as timed_out
            from baton.events
            where run_id = $1::uuid and node_key is not null and kind not in ('progress', 'log', 'log_limit')
            order by id
            """, [id])
        return (0..<r.rowCount).map { i in
            TimelineEvent(
                node: r[row: i, column: "node_key"]!, kind: r[row: i, column: "kind"]!, at: Double(r[row: i, column: "at"] ?? "0") ?? 0,
                attempt: r[row: i, column: "attempt"].flatMap { Int($0) }, dueAt: r[row: i, column: "due"].flatMap(Double.init),
                timedOut: r[row: i, column: "timed_out"] == "t")
        }
    }
}
