/// Where a node stands with its mutexes, concurrency slot and cache slot.
public enum AdmissionHold: String, Sendable, Equatable {
    /// Nothing asked, nothing held.
    case none
    /// `.acquire` was sent; the node is `waiting` for `.admitted` or `.cached`.
    case requested
    /// Granted: the node is queued or running, and releases when it leaves those.
    case held
}
