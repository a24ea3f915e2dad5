import Baton
import Foundation

/// Limits from the `BATON_MAX_*` environment variables, with a bad value as a usage error.
public enum Limits {
    /// The defaults, overridden by whichever `BATON_MAX_*` variables are set; a bad value is an error naming it.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GraphLimits {
        var limits = GraphLimits()
        func read(_ name: String, _ range: ClosedRange<Int>, _ apply: (Int) -> Void) throws {
            guard let text = environment[name] else { return }
            guard let value = Int(text), range.contains(value) else {
                throw CLIFailure("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", exitCode: 2)
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
