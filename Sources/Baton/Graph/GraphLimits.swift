import Foundation

/// Bounds that graphs, inputs and outputs must stay within. Every one can be set
/// from the environment (`BATON_MAX_NODES`, `BATON_MAX_GRAPH_BYTES`, `BATON_MAX_DEPTH`,
/// `BATON_MAX_INPUT_BYTES`, `BATON_MAX_OUTPUT_BYTES`); see `fromEnvironment()`.
public struct GraphLimits: Sendable, Equatable {
    public var maxNodes: Int
    public var maxGraphBytes: Int
    public var maxDepth: Int
    /// Largest input a node may be dispatched with, after injection (JSON bytes).
    public var maxInputBytes: Int
    /// Largest output a procedure may return (JSON bytes).
    public var maxOutputBytes: Int

    public init(maxNodes: Int = 100_000, maxGraphBytes: Int = 64 << 20, maxDepth: Int = 64,
                maxInputBytes: Int = 16 << 20, maxOutputBytes: Int = 16 << 20) {
        self.maxNodes = maxNodes
        self.maxGraphBytes = maxGraphBytes
        self.maxDepth = maxDepth
        self.maxInputBytes = maxInputBytes
        self.maxOutputBytes = maxOutputBytes
    }

    /// The defaults, overridden by whichever `BATON_MAX_*` variables are set; a bad value is an error naming it.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GraphLimits {
        var limits = GraphLimits()
        func read(_ name: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) throws {
            guard let text = environment[name] else { return }
            guard let value = Int(text), range.contains(value) else {
                throw LimitError(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
            }
            apply(value)
        }
        try read("BATON_MAX_NODES", 1...10_000_000) { limits.maxNodes = $0 }
        try read("BATON_MAX_GRAPH_BYTES", 1...(1 << 31)) { limits.maxGraphBytes = $0 }
        try read("BATON_MAX_DEPTH", 2...1_000) { limits.maxDepth = $0 }
        try read("BATON_MAX_INPUT_BYTES", 1...(256 << 20)) { limits.maxInputBytes = $0 }
        try read("BATON_MAX_OUTPUT_BYTES", 1...(256 << 20)) { limits.maxOutputBytes = $0 }
        return limits
    }
}

/// A limit set to a value it cannot take.
public struct LimitError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
