/// The state of a node, as stored in `baton.nodes.status`.
public enum NodeStatus: String, Sendable, Codable, CaseIterable {
    case pending, ready, queued, running, waiting, succeeded, failed, cancelled, skipped

    /// True once the node will not change again (within this run attempt).
    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .skipped: return true
        default: return false
        }
    }
}
