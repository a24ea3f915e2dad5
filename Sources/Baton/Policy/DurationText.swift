/// Durations as graph files write them: `"250ms"`, `"30s"`, `"1.5m"`, `"1h"`.
public enum DurationText {
    /// Seconds, or a reason the text is not a duration.
    public static func parse(_ json: JSON) -> Result<Double, DurationError> {
        guard case let .string(text) = json else {
            return .failure(DurationError("must be a duration string such as \"30s\", found \(json.kindName)"))
        }
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            // Plain decimals only: Double() would also take "0x10", "inf" or "1e3".
            let digits = number.hasPrefix("-") ? number.dropFirst() : number[...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                digits.filter({ $0 == "." }).count <= 1
            else { continue }
            // "5m" must not be read as "5" + "m" of "ms"; the order of `units` makes "ms" win.
            guard let value = Double(number), value.isFinite, !number.hasPrefix("+"), !number.contains("e"), !number.contains("E") else { continue }
            guard value >= 0 else { return .failure(DurationError("'\(text)' is negative")) }
            let seconds = value * unit.seconds
            guard seconds <= 366 * 24 * 3600 else { return .failure(DurationError("'\(text)' is longer than a year")) }
            return .success(seconds)
        }
        return .failure(DurationError("'\(text)' is not a duration (use a number with ms, s, m or h, such as \"250ms\" or \"5m\")"))
    }

    /// Compact text for a number of seconds, for messages.
    public static func format(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds == seconds.rounded() { return "\(Int(seconds))s" }
        return "\((seconds * 1000).rounded() / 1000)s"
    }
}

public struct DurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
