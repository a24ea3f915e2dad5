import Baton

/// A run's status and how many of its nodes are in each status: the nodes of its graph
/// (`top`), known when it was submitted, apart from the children its groups, maps and
/// spawning nodes added as they started (`children`, keyed `parent/child`).
public struct RunProgress: Sendable, Equatable {
    public var status: RunStatus
    public var error: String?
    public var top: [NodeStatus: Int]
    public var children: [NodeStatus: Int]

    public init(status: RunStatus, error: String? = nil, top: [NodeStatus: Int], children: [NodeStatus: Int] = [:]) {
        self.status = status
        self.error = error
        self.top = top
        self.children = children
    }

    /// Every node, children included, by status.
    public var counts: [NodeStatus: Int] { top.merging(children, uniquingKeysWith: +) }
}
