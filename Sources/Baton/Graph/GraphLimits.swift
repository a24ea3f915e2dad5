import Foundation

/// Bounds that graphs, inputs and outputs must stay within, with their defaults.
/// The `baton` CLI sets them from the environment (`BATON_MAX_NODES`, `BATON_MAX_GRAPH_BYTES`,
/// `BATON_MAX_DEPTH`, `BATON_MAX_INPUT_BYTES`, `BATON_MAX_OUTPUT_BYTES`); the library reads no environment.
public struct GraphLimits: Sendable, Equatable {
    public var maxNodes: Int
    public var maxGraphBytes: Int
    public var maxDepth: Int
    /// Largest input a node may be dispatched with, after injection (JSON bytes).
    public var maxInputBytes: Int
    /// Largest output a procedure may return (JSON bytes).
    public var maxOutputBytes: Int

    public init(
        maxNodes: Int = 100_000, maxGraphBytes: Int = 64 << 20, maxDepth: Int = 64,
        maxInputBytes: Int = 16 << 20, maxOutputBytes: Int = 16 << 20
    ) {
        self.maxNodes = maxNodes
        self.maxGraphBytes = maxGraphBytes
        self.maxDepth = maxDepth
        self.maxInputBytes = maxInputBytes
        self.maxOutputBytes = maxOutputBytes
    }
}
