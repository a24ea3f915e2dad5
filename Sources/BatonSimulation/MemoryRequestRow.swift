import Baton
import BatonStore
import Foundation

/// A row of `baton.requests` in a `MemoryStore`: a user's cancel, retry or signal, and when it was handled.
public struct MemoryRequestRow: Sendable, Equatable {
    public let id: Int
    public let runID: String
    public let kind: RunRequest.Kind
    public let node: String?
    public let reason: String?
    /// What a signal delivers (nil for the other kinds).
    public var value: JSON? = nil
    public var requestedAt: Date? = nil
    public internal(set) var handledAt: Date?

    /// The request as `CoordinatorStore.openRequests` returns it.
    var request: RunRequest {
        RunRequest(id: id, runID: runID, kind: kind, node: node, reason: reason, value: value, requestedAt: requestedAt)
    }
}
