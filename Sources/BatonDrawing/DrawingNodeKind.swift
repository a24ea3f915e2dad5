/// What a drawn node stands for.
public enum DrawingNodeKind: String, Sendable, Codable {
    /// A procedure a worker runs.
    case procedure
    /// A group: drawn as a cluster of its children.
    case group
    /// A map: one node showing the mapped procedure, or (in a run) a cluster of the children it made.
    case map
}
