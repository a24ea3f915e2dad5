import Baton

/// What a drawing of a run needs of one stored node (`baton.nodes`): the store's rows map onto it.
public struct NodeRunState: Sendable, Equatable {
    public let key: String
    public let procedure: String
    public let status: NodeStatus
    public let attempts: Int

    public init(key: String, procedure: String, status: NodeStatus, attempts: Int) {
        self.key = key
        self.procedure = procedure
        self.status = status
        self.attempts = attempts
    }
}
