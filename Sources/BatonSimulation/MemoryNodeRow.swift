import Baton
import BatonSeams
import Foundation

/// A row of `baton.nodes` in a `MemoryStore`: what `Store` keeps of a node. The columns a commit
/// writes are `values`, by their position in `NodeColumn.all` (a new column needs nothing here);
/// the typed properties read and write the ones the twin looks at.
public struct MemoryNodeRow: Sendable, Equatable {
    public let runID: String
    public let key: String
    /// The columns of `NodeColumn.all`, in its order (nil: NULL).
    public internal(set) var values: [ColumnValue?]
    /// The batch that last queued the node (see `MemoryStore.confirmedThrough`).
    public internal(set) var dispatchBatch: Int64?

    init(runID: String, key: String, values: [ColumnValue?], dispatchBatch: Int64?) {
        self.runID = runID
        self.key = key
        self.values = values
        self.dispatchBatch = dispatchBatch
    }

    /// A row as a submit writes it (pending, nothing run yet).
    init(runID: String, key: String, procedure: String, template: JSON?, position: Int, pool: String) {
        self.init(runID: runID, key: key, values: Array(repeating: nil, count: NodeColumn.all.count), dispatchBatch: nil)
        self.procedure = procedure
        status = .pending
        attempts = 0
        self.template = template
        self.position = position
        self.pool = pool
        scheduler = .object(JSONObject())
        values[NodeColumn.index("version")] = .int(Int64(ProcedureName.version(ofRouted: procedure)))
    }

    public internal(set) var procedure: String {
        get { values[Column.procedure]?.text ?? "" }
        set { values[Column.procedure] = .text(newValue) }
    }
    public internal(set) var status: NodeStatus {
        get { values[Column.status]?.text.flatMap(NodeStatus.init(rawValue:)) ?? .pending }
        set { values[Column.status] = .text(newValue.rawValue) }
    }
    public internal(set) var attempts: Int {
        get { values[Column.attempts]?.int.map { Int($0) } ?? 0 }
        set { values[Column.attempts] = .int(Int64(newValue)) }
    }
    /// What the procedure received (nil while pending, unless an earlier attempt set it).
    public internal(set) var input: JSON? {
        get { values[Column.input]?.json }
        set { values[Column.input] = newValue.map(ColumnValue.json) }
    }
    public internal(set) var output: JSON? {
        get { values[Column.output]?.json }
        set { values[Column.output] = newValue.map(ColumnValue.json) }
    }
    public internal(set) var error: String? {
        get { values[Column.error]?.text }
        set { values[Column.error] = newValue.map(ColumnValue.text) }
    }
    /// The type name of the error a failed attempt threw (with `error`; nil when it had none).
    public internal(set) var errorType: String? {
        get { values[Column.errorType]?.text }
        set { values[Column.errorType] = newValue.map(ColumnValue.text) }
    }
    public internal(set) var worker: String? {
        get { values[Column.worker]?.text }
        set { values[Column.worker] = newValue.map(ColumnValue.text) }
    }
    /// The input as written in the graph, with its references.
    public internal(set) var template: JSON? {
        get { values[Column.template]?.json }
        set { values[Column.template] = newValue.map(ColumnValue.json) }
    }
    public internal(set) var position: Int {
        get { values[Column.position]?.int.map { Int($0) } ?? 0 }
        set { values[Column.position] = .int(Int64(newValue)) }
    }
    public internal(set) var pool: String {
        get { values[Column.pool]?.text ?? "" }
        set { values[Column.pool] = .text(newValue) }
    }
    public internal(set) var dueAt: Date? {
        get { values[Column.dueAt]?.time }
        set { values[Column.dueAt] = newValue.map(ColumnValue.time) }
    }
    /// `NodeState.bookkeeping` as last written (`{}` until then).
    public internal(set) var scheduler: JSON {
        get { values[Column.scheduler]?.json ?? .object(JSONObject()) }
        set { values[Column.scheduler] = .json(newValue) }
    }
    public internal(set) var queuedAt: Date? {
        get { values[Column.queuedAt]?.time }
        set { values[Column.queuedAt] = newValue.map(ColumnValue.time) }
    }
    public internal(set) var startedAt: Date? {
        get { values[Column.startedAt]?.time }
        set { values[Column.startedAt] = newValue.map(ColumnValue.time) }
    }
    public internal(set) var finishedAt: Date? {
        get { values[Column.finishedAt]?.time }
        set { values[Column.finishedAt] = newValue.map(ColumnValue.time) }
    }
    /// The children a group, map or spawning node expanded into, as `JSON(encoding: GroupSpec)`.
    public internal(set) var fragment: JSON? {
        get { values[Column.fragment]?.json }
        set { values[Column.fragment] = newValue.map(ColumnValue.json) }
    }
    /// The token of the current attempt (`AttemptToken.text`), written in the commit that queued it.
    public internal(set) var attemptToken: String? {
        get { values[Column.attemptToken]?.text }
        set { values[Column.attemptToken] = newValue.map(ColumnValue.text) }
    }

    /// The positions of the columns the typed properties read.
    private enum Column {
        static let procedure = NodeColumn.index("procedure")
        static let status = NodeColumn.index("status")
        static let attempts = NodeColumn.index("attempts")
        static let input = NodeColumn.index("input")
        static let output = NodeColumn.index("output")
        static let error = NodeColumn.index("error")
        static let errorType = NodeColumn.index("error_type")
        static let worker = NodeColumn.index("worker")
        static let template = NodeColumn.index("template")
        static let position = NodeColumn.index("position")
        static let pool = NodeColumn.index("pool")
        static let dueAt = NodeColumn.index("due_at")
        static let scheduler = NodeColumn.index("scheduler")
        static let queuedAt = NodeColumn.index("queued_at")
        static let startedAt = NodeColumn.index("started_at")
        static let finishedAt = NodeColumn.index("finished_at")
        static let fragment = NodeColumn.index("fragment")
        static let attemptToken = NodeColumn.index("attempt_token")
    }
}
