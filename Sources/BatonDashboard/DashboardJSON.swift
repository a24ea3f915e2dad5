import Baton
import BatonStore

/// The API's JSON shapes, one function per kind of row; docs/dashboard.md shows each.
public enum DashboardJSON {
    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    public static func run(_ row: RunRow) -> JSON {
        [
            "id": .string(row.id), "name": .string(row.name), "status": .string(row.status.rawValue),
            "submitted_at": .string(row.submittedAt), "started_at": optional(row.startedAt), "finished_at": optional(row.finishedAt),
            "error": optional(row.error), "node_count": .int(Int64(row.nodeCount)), "nodes_done": .int(Int64(row.nodesDone)),
            "input": row.input, "paused": .bool(row.paused == true),
        ]
    }

    public static func node(_ row: NodeRow) -> JSON {
        [
            "key": .string(row.key), "procedure": .string(row.procedure), "status": .string(row.status),
            "attempts": .int(Int64(row.attempts)), "input": row.input ?? .null, "output": row.output ?? .null,
            "error": optional(row.error), "error_type": optional(row.errorType), "worker": optional(row.worker),
            "worker_text": optional(row.workerText),
            "queued_at": optional(row.queuedAt),
            "started_at": optional(row.startedAt), "finished_at": optional(row.finishedAt), "seconds": row.seconds.map(JSON.double) ?? .null,
            "lost_workers": .array((row.lostWorkers ?? []).map(JSON.string)), "waiting_for": optional(row.waitingFor),
        ]
    }

    public static func event(_ row: EventRow) -> JSON {
        ["id": .int(Int64(row.id)), "node": optional(row.node), "kind": .string(row.kind), "at": .string(row.at), "detail": row.detail]
    }

    public static func worker(_ row: WorkerRow) -> JSON {
        [
            "id": .string(row.id), "host": .string(row.host), "pid": .int(Int64(row.pid)),
            "pools": .array(row.pools.map(JSON.string)), "procedures": .array(row.procedures.map(JSON.string)),
            "slots": .int(Int64(row.slots)), "started_at": .string(row.startedAt), "last_seen_at": .string(row.lastSeenAt),
            "seconds_since_seen": .double(row.secondsSinceSeen),
        ]
    }

    /// A live coordinator: what it announced, and the partitions it holds with their epochs.
    public static func coordinator(_ row: CoordinatorRow) -> JSON {
        [
            "id": .string(row.id), "host": .string(row.host), "pid": .int(Int64(row.pid)), "started_at": .string(row.startedAt),
            "seconds_since_seen": .double(row.secondsSinceSeen), "runs": .int(Int64(row.runs)), "nodes_per_second": .double(row.nodesPerSecond),
            "partitions": .array(row.partitions.map { ["partition": .int(Int64($0.partition)), "epoch": .int($0.epoch)] }),
            "partition_ranges": .string(PartitionRanges.text(row.partitions.map(\.partition))), "epoch_range": .string(row.epochRange),
        ]
    }

    /// Counts by status, every status listed (zeros included) in the statuses' order.
    public static func counts<S: RawRepresentable & CaseIterable & Hashable>(_ counts: [S: Int]) -> JSON where S.RawValue == String {
        .object(JSONObject(S.allCases.map { ($0.rawValue, JSON.int(Int64(counts[$0] ?? 0))) }))
    }

    /// A node with its events, its latest progress and its log lines, as the run page's panel shows it.
    public static func nodeDetail(_ row: NodeRow, events: [EventRow]) -> JSON {
        let progress = events.last { $0.eventKind == .progress }
        let logs = events.filter { $0.eventKind == .log || $0.eventKind == .logLimit }
        return [
            "node": node(row),
            "progress": progress.map { ["fraction": $0.detail["fraction"] ?? .null, "message": $0.detail["message"] ?? .null, "at": .string($0.at)] }
                ?? .null,
            "logs": .array(logs.map { ["at": .string($0.at), "attempt": $0.detail["attempt"] ?? .null, "message": $0.detail["message"] ?? .null] }),
            "events": .array(events.map(event)),
        ]
    }
}
