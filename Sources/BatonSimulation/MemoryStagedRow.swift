import Baton
import Foundation

/// A node row as one `apply` batch leaves it, before it is written: `Store.apply`'s merged JSON
/// row, field by field (the `set…` and `reset` flags say how it updates the stored row).
struct MemoryStagedRow {
    let runID: String
    let key: String
    var status: NodeStatus
    var attempts: Int
    var setInput = false
    var input: JSON?
    var setOutput = false
    var output: JSON?
    var error: String?
    var errorType: String?
    var worker: String?
    var reset = false
    var setFragment = false
    var fragment: JSON?
    var queuedAt: Date?
    var startedAt: Date?
    var finishedAt: Date?
    var dueAt: Date?
    var scheduler: JSON?
    /// A change queued an attempt: its token (nil: none) replaces the stored one.
    var setToken = false
    var attemptToken: String?
    // Only for children the batch inserts.
    var procedure: String?
    var template: JSON?
    var position: Int?
    var pool: String?

    /// The row a child starts as when its parent expands.
    init(child key: String, of node: GraphNode, runID: String, position: Int) {
        self.runID = runID
        self.key = key
        status = .pending
        attempts = 0
        procedure = node.procedure
        template = node.input.written
        self.position = position
        pool = node.pool
    }

    /// The row a change of a node not yet in the batch starts from (merged at once).
    init(runID: String, key: String) {
        self.runID = runID
        self.key = key
        status = .pending
        attempts = 0
    }

    /// Folds `change` in, as `Store`'s `merge` does; `now` stamps queued and running nodes.
    mutating func merge(_ change: NodeChange, now: Date) {
        status = change.status
        attempts = change.attempt
        error = change.error?.replacingOccurrences(of: "\u{0}", with: "")  // as `Store.apply`: a NUL is dropped
        errorType = change.errorType
        if let input = change.input { setInput = true; self.input = input }
        if let output = change.output { setOutput = true; self.output = output }
        if let worker = change.worker { self.worker = worker }
        if let bookkeeping = change.bookkeeping { scheduler = bookkeeping }
        dueAt = change.dueAt
        if change.reset {  // what this batch sets later still lands; what came before is cleared
            reset = true
            worker = nil
            startedAt = nil
            finishedAt = nil
            output = nil
            setOutput = false
        }
        switch change.status {
        case .queued:
            queuedAt = now
            setToken = true
            attemptToken = change.attemptToken?.text
        case .running:
            startedAt = change.startedAt ?? now
        default:
            if let started = change.startedAt { startedAt = started }
            if change.status.isTerminal { finishedAt = change.finishedAt ?? now }
        }
    }
}
