import Baton
import BatonPostgres
import Foundation

/// A node as `baton show` lists it.
public struct NodeRow: Sendable, Codable {
    public let key: String
    public let procedure: String
    public let status: String
    public let attempts: Int
    public let input: JSON?
    public let output: JSON?
    public let error: String?
    /// The type name of the error the failed attempt threw, when it threw one (`AttemptResult.errorType`).
    public let errorType: String?
    public let worker: String?
    public let queuedAt: String?
    public let startedAt: String?
    public let finishedAt: String?
    public let seconds: Double?
    /// The workers that lost an attempt of the node before `worker`, oldest first (nil: none):
    /// the attempt was delivered again to another worker (event `redelivered`) or sent out anew
    /// when the worker's lease ran out (`lease_expired`).
    public let lostWorkers: [String]?
    /// While `waiting`, what for: `retry`, `repeat`, `delay`, `admission`, `signal` or `paused` (nil otherwise).
    public let waitingFor: String?

    enum CodingKeys: String, CodingKey {
        case key, procedure, status, attempts, input, output, error, worker, seconds
        case queuedAt = "queued_at", startedAt = "started_at", finishedAt = "finished_at", lostWorkers = "lost_workers"
        case errorType = "error_type", waitingFor = "waiting_for"
    }

    /// The status as `baton show` prints it: `waiting (paused)` while a pause holds the node.
    public var statusText: String {
        guard status == NodeStatus.waiting.rawValue, let waitingFor else { return status }
        return "\(status) (\(waitingFor))"
    }

    /// The query of the nodes of run `$1` (`baton.nodes n`), and only those that match `condition`
    /// if given, with what `init(_:row:)` reads; `$1` is also the run whose events it reads.
    static func select(andWhere condition: String? = nil) -> String {
        """
        with lost as (
            select e.node_key, jsonb_agg(e.detail->'worker' order by e.id)::text as workers from baton.events e
            where e.run_id = $1::uuid and e.kind in ('redelivered', 'lease_expired') and e.node_key is not null group by e.node_key)
        select n.key, n.procedure, n.status, n.attempts, n.input::text as input, n.output::text as output, n.error, n.error_type, n.worker,
               n.queued_at::text as queued_at, n.started_at::text as started_at, n.finished_at::text as finished_at,
               extract(epoch from n.finished_at - n.started_at)::float8 as seconds, lost.workers as lost_workers, n.position,
               case when n.status = 'waiting' then n.scheduler->>'waiting_for' end as waiting_for
        from baton.nodes n left join lost on lost.node_key = n.key
        where n.run_id = $1::uuid\(condition.map { " and " + $0 } ?? "")
        """
    }

    /// The worker, followed by those that lost an attempt of the node before it, if any:
    /// `w2 (after w1)`.
    public var workerText: String? {
        let before = (lostWorkers ?? []).filter { $0 != worker }
        guard !before.isEmpty else { return worker }
        return "\(worker ?? "-") (after \(before.joined(separator: ", ")))"
    }

    /// Row `i` of a result of `select(andWhere:)`.
    init(_ r: PGResult, row i: Int) {
        key = r[row: i, column: "key"]!
        procedure = r[row: i, column: "procedure"]!
        status = r[row: i, column: "status"]!
        attempts = r.int(i, "attempts") ?? 0
        input = r[row: i, column: "input"].flatMap { try? JSONParser.parse($0, maxDepth: 1024) }
        output = r[row: i, column: "output"].flatMap { try? JSONParser.parse($0, maxDepth: 1024) }
        error = r[row: i, column: "error"]
        errorType = r[row: i, column: "error_type"]
        worker = r[row: i, column: "worker"]
        queuedAt = r[row: i, column: "queued_at"]
        startedAt = r[row: i, column: "started_at"]
        finishedAt = r[row: i, column: "finished_at"]
        seconds = r[row: i, column: "seconds"].flatMap(Double.init)
        lostWorkers = r[row: i, column: "lost_workers"].flatMap { try? JSONParser.parse($0) }?.arrayValue?.compactMap(\.stringValue)
        waitingFor = r[row: i, column: "waiting_for"]
    }
}
