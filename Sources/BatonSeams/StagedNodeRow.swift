import Baton
import Foundation

/// A node row as one commit leaves it, before either store writes it: the changes of the node in
/// the batch folded into one row (`merge`), with flags saying how it updates the stored row.
/// `Store` writes it as SQL, `MemoryStore` into its tables; a column a commit writes is a field here.
public struct StagedNodeRow: Sendable, Equatable {
    public let runID: String
    public let key: String
    /// The batch inserts the row (a child of a node that expanded), rather than updating it.
    public internal(set) var isInserted = false
    public internal(set) var status: NodeStatus
    public internal(set) var attempts: Int
    /// `input` replaces the stored one (else it is kept).
    public internal(set) var setInput = false
    public internal(set) var input: JSON?
    /// `output` replaces the stored one (else it is kept, or cleared by `reset`).
    public internal(set) var setOutput = false
    public internal(set) var output: JSON?
    /// Replaces the stored error (nil clears it); a NUL in it is dropped: a text column cannot hold one.
    public internal(set) var error: String?
    public internal(set) var errorType: String?
    /// Replaces the stored worker when set (or always, after a `reset`).
    public internal(set) var worker: String?
    /// The node starts anew: what came before this batch (worker, times, output) is cleared.
    public internal(set) var reset = false
    /// `fragment` replaces the stored one (a node that expanded or was pruned).
    public internal(set) var setFragment = false
    public internal(set) var fragment: JSON?
    /// When set, replace the stored time (or always, after a `reset`, for started and finished).
    public internal(set) var queuedAt: Date?
    public internal(set) var startedAt: Date?
    public internal(set) var finishedAt: Date?
    /// Replaces the stored due time (nil clears it).
    public internal(set) var dueAt: Date?
    /// `NodeState.bookkeeping` to store, when the batch changed it.
    public internal(set) var scheduler: JSON?
    /// A change queued an attempt: its token (nil: none) replaces the stored one.
    public internal(set) var setToken = false
    public internal(set) var attemptToken: String?
    /// Only for a row the batch inserts: what the graph says of the child.
    public internal(set) var procedure: String?
    public internal(set) var template: JSON?
    public internal(set) var position: Int?
    public internal(set) var pool: String?

    /// The row a child starts as when its parent expands (pending, inserted).
    init(child key: String, of node: GraphNode, runID: String, position: Int) {
        self.runID = runID
        self.key = key
        isInserted = true
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

    /// Folds `change` in: the one merge of a node's changes, for both stores. `now` stamps queued
    /// and running nodes, and ended ones that carry no time of their own.
    mutating func merge(_ change: NodeChange, now: Date) {
        status = change.status
        attempts = change.attempt
        error = change.error.map { $0.replacingOccurrences(of: "\u{0}", with: "") }
        errorType = change.errorType
        if let input = change.input {
            setInput = true
            self.input = input
        }
        if let output = change.output {
            setOutput = true
            self.output = output
        }
        if let worker = change.worker { self.worker = worker }
        if let bookkeeping = change.bookkeeping { scheduler = bookkeeping }
        if change.status == .queued {  // a new attempt's token, kept through what the batch does next (started, ended)
            setToken = true
            attemptToken = change.attemptToken?.text
        }
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
        case .running:
            startedAt = change.startedAt ?? now
        default:
            if let started = change.startedAt { startedAt = started }
            if change.status.isTerminal { finishedAt = change.finishedAt ?? now }
        }
    }
}
