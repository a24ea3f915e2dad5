import Baton
import Foundation

/// A user's request about a run, waiting for the coordinator (the only writer of run state).
public struct RunRequest: Sendable, Equatable {
    public enum Kind: String, Sendable { case cancel, retry, signal }
    public let id: Int
    public let runID: String
    public let kind: Kind
    public let node: String?
    public let reason: String?
    /// What a signal delivers (nil for the other kinds).
    public let value: JSON?
    /// When it was asked for (a signal's `sent_at`).
    public let requestedAt: Date?

    /// A request as a store read it (the simulator's store twin makes them too).
    public init(
        id: Int, runID: String, kind: Kind, node: String?, reason: String?, value: JSON? = nil, requestedAt: Date? = nil
    ) {
        self.id = id
        self.runID = runID
        self.kind = kind
        self.node = node
        self.reason = reason
        self.value = value
        self.requestedAt = requestedAt
    }
}
