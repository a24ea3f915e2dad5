/// Why one node waits for another.
public enum DrawingEdgeKind: String, Sendable, Codable {
    /// A `$from` reference (in the input, `when`, `condition`, a concurrency key or a map's `over`): drawn solid.
    case input
    /// Ordering only (`after`): drawn dashed.
    case after
}
