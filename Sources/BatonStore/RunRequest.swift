import Baton
import BatonPostgres

/// A user's request about a run, waiting for the coordinator (the only writer of run state).
public struct RunRequest: Sendable, Equatable {
    public enum Kind: String, Sendable { case cancel, retry }
    public let id: Int
    public let runID: String
    public let kind: Kind
    public let node: String?
    public let reason: String?

    /// A request as a store read it (the simulator's store twin makes them too).
    public init(id: Int, runID: String, kind: Kind, node: String?, reason: String?) {
        self.id = id
        self.runID = runID
        self.kind = kind
        self.node = node
        self.reason = reason
    }
}
