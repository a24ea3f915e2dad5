import Baton
import Foundation

/// A row of `baton.runs` in a `MemoryStore`.
public struct MemoryRunRow: Sendable {
    public let id: String
    public let name: String
    public internal(set) var status: RunStatus
    public internal(set) var error: String?
    /// `Graph.planBytes()` as submitted: `loadRun` reads the graph from it, as `Store` does.
    public let plan: [UInt8]
    /// The run's input (the graph's `input`).
    public let input: JSON
    public let submittedAt: Date
    public internal(set) var startedAt: Date?
    public internal(set) var finishedAt: Date?
    /// Submission order: ties of `submittedAt` are broken by it.
    let sequence: Int
}
