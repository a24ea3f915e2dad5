import Foundation

/// How long to wait before the next attempt (or repetition), as ProcedureKit's `WaitStrategy`.
public enum WaitStrategy: Sendable, Equatable, Codable {
    case immediate
    case constant(Double)
    case incrementing(initial: Double, increment: Double)
    case fibonacci(period: Double, max: Double)
    case exponential(initial: Double, factor: Double, max: Double)
    case random(min: Double, max: Double)

    /// The wait in seconds before attempt `n + 1`, after `n` (1-based) attempts. `random` is in 0..<1.
    public func delay(after n: Int, random: Double) -> Double {
        let n = max(1, n)
        switch self {
        case .immediate: return 0
        case let .constant(d): return d
        case let .incrementing(initial, increment): return initial + Double(n - 1) * increment
        case let .fibonacci(period, cap):
            var (a, b) = (1.0, 1.0)
            for _ in 1..<n where a < cap / max(period, 1e-9) { (a, b) = (b, a + b) }  // stop once the cap is reached
            return min(cap, period * a)
        case let .exponential(initial, factor, cap):
            let grown = initial * pow(factor, Double(n - 1))
            return initial == 0 ? 0 : (grown.isFinite ? min(cap, grown) : cap)
        case let .random(lower, upper): return lower + (upper - lower) * random
        }
    }

    /// Decodes `"immediate"` or `{"constant": "2s"}`, `{"incrementing": {...}}`, ...; nil after reporting a problem.
    static func decode(_ json: JSON, report: (String, String) -> Void) -> WaitStrategy? {
        if json == "immediate" { return .immediate }
        guard case let .object(o) = json, o.count == 1, let (kind, value) = o.members.first.map({ ($0.key, $0.value) }) else {
            report("", "must be \"immediate\" or an object with one of constant, incrementing, fibonacci, exponential, random")
            return nil
        }
        func duration(_ field: String, in object: JSONObject, default fallback: Double? = nil) -> Double? {
            guard let v = object[field] else {
                if let fallback { return fallback }
                report("\(kind)/\(field)", "is required")
                return nil
            }
            switch DurationText.parse(v) {
            case let .success(s): return s
            case let .failure(e): report("\(kind)/\(field)", e.description); return nil
            }
        }
        func fields(_ allowed: Set<String>) -> JSONObject? {
            guard case let .object(inner) = value else {
                report(kind, "must be an object with \(allowed.sorted().joined(separator: ", "))"); return nil
            }
            for key in inner.keys where !allowed.contains(key) {
                report("\(kind)/\(key)", "unknown field (expected one of: \(allowed.sorted().joined(separator: ", ")))")
            }
            return inner
        }
        switch kind {
        case "constant":
            switch DurationText.parse(value) {
            case let .success(s): return .constant(s)
            case let .failure(e): report(kind, e.description); return nil
            }
        case "incrementing":
            guard let f = fields(["initial", "increment"]), let i = duration("initial", in: f), let inc = duration("increment", in: f) else {
                return nil
            }
            return .incrementing(initial: i, increment: inc)
        case "fibonacci":
            guard let f = fields(["period", "max"]), let p = duration("period", in: f), let m = duration("max", in: f, default: 3600) else {
                return nil
            }
            return .fibonacci(period: p, max: m)
        case "exponential":
            guard let f = fields(["initial", "factor", "max"]), let i = duration("initial", in: f), let m = duration("max", in: f, default: 3600)
            else { return nil }
            var factor = 2.0
            if let v = f["factor"] {
                guard let x = v.numberValue, x >= 1, x <= 100 else {
                    report("exponential/factor", "must be a number from 1 to 100, found \(v)"); return nil
                }
                factor = x
            }
            return .exponential(initial: i, factor: factor, max: m)
        case "random":
            guard let f = fields(["min", "max"]), let lo = duration("min", in: f), let hi = duration("max", in: f) else { return nil }
            guard lo <= hi else { report("random", "min must not be greater than max"); return nil }
            return .random(min: lo, max: hi)
        default:
            report(kind, "unknown wait strategy (expected immediate, constant, incrementing, fibonacci, exponential or random)")
            return nil
        }
    }
}
