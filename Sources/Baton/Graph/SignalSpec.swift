/// A node that waits for a value sent from outside the run (`signal` in a graph file): it holds no
/// worker slot, and succeeds with the value `baton signal RUN NODE` (or `Store.signal`) delivers.
public struct SignalSpec: Sendable, Equatable, Codable {
    /// The procedure name a signal node's row shows (nothing runs it).
    public static let procedureName = "baton.signal"
    /// The longest signal name a graph may give.
    public static let maxNameLength = 200
    /// What the node waits for, as the graph names it (`approval`): shown, never matched.
    public let name: String

    public init(name: String) { self.name = name }
}
