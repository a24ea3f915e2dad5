import Baton
import Foundation

/// A row of `baton.nodes` in a `MemoryStore`: what `Store` keeps of a node, column by column.
public struct MemoryNodeRow: Sendable, Equatable {
    public let runID: String
    public let key: String
    public internal(set) var procedure: String
    public internal(set) var status: NodeStatus
    public internal(set) var attempts: Int
    /// What the procedure received (nil while pending, unless an earlier attempt set it).
    public internal(set) var input: JSON?
    public internal(set) var output: JSON?
    public internal(set) var error: String?
    /// The type name of the error a failed attempt threw (with `error`; nil when it had none).
    public internal(set) var errorType: String?
    public internal(set) var worker: String?
    /// The input as written in the graph, with its references.
    public internal(set) var template: JSON?
    public internal(set) var position: Int
    public internal(set) var pool: String
    public internal(set) var dueAt: Date?
    /// `NodeState.bookkeeping` as last written (`{}` until then).
    public internal(set) var scheduler: JSON
    /// The batch that last queued the node (see `MemoryStore.confirmedThrough`).
    public internal(set) var dispatchBatch: Int64?
    public internal(set) var queuedAt: Date?
    public internal(set) var startedAt: Date?
    public internal(set) var finishedAt: Date?
    /// The children a group, map or spawning node expanded into, as `JSON(encoding: GroupSpec)`.
    public internal(set) var fragment: JSON?
    /// The token of the current attempt (`AttemptToken.text`), written in the commit that queued it.
    public internal(set) var attemptToken: String? = nil
}
