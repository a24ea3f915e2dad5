import Baton

/// A node of a drawing: a graph node, or in a run also a child that its parent made.
public struct DrawingNode: Sendable, Equatable, Codable {
    /// The full key (`parent/child` for children).
    public let key: String
    /// The procedure it runs (for a map, the procedure of each child; for a group, `baton.group`).
    public let procedure: String
    public let kind: DrawingNodeKind
    /// The key of the node whose cluster holds this one, or nil at the top.
    public let parent: String?
    /// In a run, the node's state; nil when drawing a graph file.
    public var status: NodeStatus?
    /// In a run, how many attempts the node has had.
    public var attempts: Int?

    public init(
        key: String, procedure: String, kind: DrawingNodeKind = .procedure, parent: String? = nil, status: NodeStatus? = nil,
        attempts: Int? = nil
    ) {
        self.key = key
        self.procedure = procedure
        self.kind = kind
        self.parent = parent
        self.status = status
        self.attempts = attempts
    }

    /// The key without its parent's part: what the node is called inside its cluster.
    public var label: String {
        guard let parent, key.hasPrefix(parent + "/") else { return key }
        return String(key.dropFirst(parent.count + 1))
    }
}
