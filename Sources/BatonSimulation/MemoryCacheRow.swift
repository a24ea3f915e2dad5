import Baton
import Foundation

/// A row of `baton.cache` in a `MemoryStore`: a cached node's output by procedure and canonical input.
public struct MemoryCacheRow: Sendable, Equatable {
    /// Increasing in the order the rows were written.
    public let id: Int64
    public let procedure: String
    /// `CanonicalJSON.text` of the input.
    public let input: String
    public let output: JSON
    public let runID: String
    public let node: String
    public let succeededAt: Date
}
