import Foundation

// The graph-file form of the policy values, as `GraphDecoder` reads them back.

extension DurationText {
    /// A duration as a graph file writes it, exactly: `"1h"`, `"5m"`, `"30s"`, `"250ms"`.
    public static func format(file duration: Duration) -> String {
        format(file: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// Seconds as a graph file writes them (the largest unit that keeps the number whole).
    public static func format(file seconds: Double) -> String {
        func whole(_ x: Double) -> Bool { x == x.rounded() && abs(x) < 1e15 }
        if seconds > 0, whole(seconds / 3600) { return "\(Int64(seconds / 3600))h" }
        if seconds > 0, whole(seconds / 60) { return "\(Int64(seconds / 60))m" }
        if whole(seconds) { return "\(Int64(seconds))s" }
        let ms = seconds * 1000
        if whole(ms) { return "\(Int64(ms))ms" }
        let text = "\(ms)"
        return text.contains("e") ? "\(Int64(ms.rounded()))ms" : "\(text)ms"
    }
}

extension WaitStrategy {
    /// The strategy as a graph file writes it.
    public var fileJSON: JSON {
        func d(_ s: Double) -> JSON { .string(DurationText.format(file: s)) }
        switch self {
        case .immediate: return "immediate"
        case let .constant(s): return ["constant": d(s)]
        case let .incrementing(initial, increment): return ["incrementing": ["initial": d(initial), "increment": d(increment)]]
        case let .fibonacci(period, max): return ["fibonacci": ["period": d(period), "max": d(max)]]
        case let .exponential(initial, factor, max):
            let f: JSON = factor == factor.rounded() && abs(factor) < 1e15 ? .int(Int64(factor)) : .double(factor)
            return ["exponential": ["initial": d(initial), "factor": f, "max": d(max)]]
        case let .random(min, max): return ["random": ["min": d(min), "max": d(max)]]
        }
    }
}

extension RetryPolicy {
    /// The policy as a graph file writes it.
    public var fileJSON: JSON {
        var m: [(key: String, value: JSON)] = [("attempts", .int(Int64(attempts)))]
        if wait != .immediate { m.append(("wait", wait.fileJSON)) }
        if jitter { m.append(("jitter", true)) }
        return .object(JSONObject(m))
    }
}
