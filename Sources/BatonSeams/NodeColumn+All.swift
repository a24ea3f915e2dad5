import Baton
import Foundation

extension NodeColumn {
    /// The columns of `baton.nodes` a commit writes, beside the row's identity (`run_id`,
    /// `run_submitted_at`, `key`) and `dispatch_batch` (the commit's batch number, which only the
    /// store knows). A new column: its migration, and an entry here with its value in the staged row.
    /// (JSON null is stored as NULL, as the statement's records write it.)
    public static let all: [NodeColumn] = [
        NodeColumn("status", .text, .replace) { .text($0.status.rawValue) },
        NodeColumn("attempts", .int, .replace) { .int(Int64($0.attempts)) },
        NodeColumn("input", .jsonb, .replaceIf(.setInput, clearedByReset: false)) { $0.input.flatMap(ColumnValue.jsonb) },
        NodeColumn("output", .jsonb, .replaceIf(.setOutput, clearedByReset: true)) { $0.output.flatMap(ColumnValue.jsonb) },
        NodeColumn("error", .text, .replace) { $0.error.map(ColumnValue.text) },
        NodeColumn("error_type", .text, .replace) { $0.errorType.map(ColumnValue.text) },
        NodeColumn("worker", .text, .keep(clearedByReset: true)) { $0.worker.map(ColumnValue.text) },
        NodeColumn("due_at", .timestamptz, .replace) { $0.dueAt.map(ColumnValue.time) },
        NodeColumn("scheduler", .jsonb, .keep(clearedByReset: false), insertDefault: .json(.object(JSONObject()))) {
            $0.scheduler.flatMap(ColumnValue.jsonb)
        },
        NodeColumn("fragment", .jsonb, .replaceIf(.setFragment, clearedByReset: false)) {
            $0.setFragment ? $0.fragment.flatMap(ColumnValue.jsonb) : nil
        },
        NodeColumn("attempt_token", .text, .replaceIf(.setToken, clearedByReset: false)) {
            $0.setToken ? $0.attemptToken.map(ColumnValue.text) : nil
        },
        NodeColumn("queued_at", .timestamptz, .keep(clearedByReset: false)) { $0.queuedAt.map(ColumnValue.time) },
        NodeColumn("started_at", .timestamptz, .keep(clearedByReset: true)) { $0.startedAt.map(ColumnValue.time) },
        NodeColumn("finished_at", .timestamptz, .keep(clearedByReset: true)) { $0.finishedAt.map(ColumnValue.time) },
        NodeColumn("procedure", .text, .insertOnly) { .text($0.procedure ?? "") },
        NodeColumn("template", .jsonb, .insertOnly) { $0.template.flatMap(ColumnValue.jsonb) },
        NodeColumn("position", .int, .insertOnly) { .int(Int64($0.position ?? 0)) },
        NodeColumn("pool", .text, .insertOnly) { .text($0.pool ?? "") },
        NodeColumn("version", .int, .insertOnly) { .int(Int64(ProcedureName.version(ofRouted: $0.procedure ?? ""))) },
    ]
}
