import BatonStore
import Foundation

/// A row of `baton.requests` in a `MemoryStore`: a user's cancel or retry, and when it was handled.
public struct MemoryRequestRow: Sendable, Equatable {
    public let id: Int
    public let runID: String
    public let kind: RunRequest.Kind
    public let node: String?
    public let reason: String?
    public internal(set) var handledAt: Date?

    /// The request as `CoordinatorStore.openRequests` returns it.
    var request: RunRequest { RunRequest.memory(id: id, runID: runID, kind: kind, node: node, reason: reason) }
}
