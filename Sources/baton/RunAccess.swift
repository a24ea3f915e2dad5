import Baton
import BatonStore

/// What the run commands read and ask, the same through either way in: the database (`DirectRuns`)
/// or `baton server`'s API (`RemoteRuns`). Both give the row types the printing code takes, so a
/// command prints the same either way. Refusals are `CLIFailure`s with the exit code docs/cli.md gives.
protocol RunAccess {
    /// The run id that `text` names (a whole id; the database also takes a unique prefix).
    func resolveRunID(_ text: String) async throws -> String
    func run(_ id: String) async throws -> RunRow
    func nodes(ofRun id: String) async throws -> [NodeRow]
    /// The events after event `after`, oldest first, every page.
    func events(ofRun id: String, after: Int) async throws -> [EventRow]
    func runs(status: RunStatus?, limit: Int) async throws -> [RunRow]
    func timeline(ofRun id: String) async throws -> (status: RunStatus, timeline: RunTimeline)
    /// The top-level nodes' outputs by key (`submit --json --wait`).
    func outputs(ofRun id: String) async throws -> JSON
    /// Its status and node counts now.
    func progress(ofRun id: String) async throws -> RunProgress
    /// Up to `limit` queued nodes no live worker serves (`key (procedure in pool p)`).
    func unserved(ofRun id: String, limit: Int) async throws -> [String]
    /// What a progress line shows now.
    func snapshot(ofRun id: String) async throws -> RunSnapshot
    /// Returns when the run may have changed: after `refresh` (a display's interval), or (remote) when
    /// an event after `event` came (and `refresh` passed) or 2 s passed; the last event id seen.
    func awaitChange(ofRun id: String, after event: Int, refresh: Duration) async throws -> Int
    func submit(_ submission: Submission) async throws -> SubmittedRunAnswer
    /// Cancel (`retry` false) or retry (`from` a node); waits up to `timeout` s for a coordinator.
    func request(cancel: Bool, _ id: String, reason: String?, from: String?, timeout: Double) async throws -> RequestAnswer
    /// `cancel|retry --where`: counts the runs `filter` matches that `action` takes (`dryRun`), or asks
    /// each of them in batches and waits up to `timeout` s for coordinators to apply the requests.
    func bulk(_ action: BulkAction, _ filter: RunFilter, reason: String?, dryRun: Bool, timeout: Double) async throws -> BulkAnswer
    func signal(_ id: String, node: String, value: JSON, maxBytes: Int, timeout: Double) async throws -> (applied: Bool, status: NodeStatus?)
    /// The workers heard from within `within` seconds (nil: the direct path's own heartbeat rule, the server's 10 s).
    func liveWorkers(within: Double?) async throws -> [WorkerRow]
    /// Each version of a procedure live workers serve or unfinished runs need, with the schemas workers
    /// published and how many unfinished runs need it.
    func procedures() async throws -> [ProcedureVersionRow]
    /// The live coordinators, and how many partitions the schema has.
    func coordinators() async throws -> (rows: [CoordinatorRow], partitions: Int)
    func close()
}

/// A run's progress as the progress line draws it.
struct RunSnapshot {
    var progress: RunProgress
    /// Up to three running nodes, and how many run.
    var running: [String]
    /// Queued nodes no live worker can take (`p (pool q): a, b`), empty if none.
    var unserved: String
}

/// A graph file to submit, read and checked for its input before any connection.
struct Submission {
    let path: String
    let bytes: [UInt8]
    let input: JSON?
    let idempotencyKey: String?
    let allowUnknownProcedures: Bool
    let typeCheck: Bool
    let traceparent: String?
}

/// What a submit stored: the run, whether it already existed, how many nodes, what no live worker serves.
struct SubmittedRunAnswer {
    let id: String
    let status: RunStatus
    let existing: Bool
    let nodeCount: Int
    let unserved: UnservedProcedures
}

/// A cancel or retry: the run's status then, and whether a coordinator applied it in time.
struct RequestAnswer {
    let status: RunStatus
    let applied: Bool
}

/// What `cancel|retry --where` did: how many runs matched (and were asked), in how many batches, how
/// many requests coordinators applied within the wait; with `--dry-run`, the first few runs instead.
struct BulkAnswer {
    let action: BulkAction
    let filter: String
    let dryRun: Bool
    let matched: Int
    let applied: Int
    let batches: Int
    let runs: [RunRow]
}
