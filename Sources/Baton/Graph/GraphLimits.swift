/// Bounds a graph must stay within to be accepted.
public struct GraphLimits: Sendable {
    public var maxNodes: Int
    public var maxGraphBytes: Int
    public var maxDepth: Int

    public init(maxNodes: Int = 100_000, maxGraphBytes: Int = 64 << 20, maxDepth: Int = 64) {
        self.maxNodes = maxNodes
        self.maxGraphBytes = maxGraphBytes
        self.maxDepth = maxDepth
    }
}
