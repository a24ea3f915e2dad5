import Foundation

/// Timestamps as PostgreSQL prints them (`2026-11-23 19:27:46.123456+00`, the store's sessions are
/// in UTC) shown short, and durations in words.
public enum DisplayTime {
    /// Seconds since 1970 of a stored timestamp, or nil if it is not one.
    public static func seconds(_ text: String) -> Double? {
        let scalars = Array(text.utf8)
        guard scalars.count >= 19 else { return nil }
        func number(_ from: Int, _ length: Int) -> Int? {
            guard from + length <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[from..<from + length] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        var result = Double(timegm(&parts))
        if scalars.count > 20, scalars[19] == UInt8(ascii: ".") {
            let end = scalars[20...].firstIndex { $0 < 48 || $0 > 57 } ?? scalars.count
            let digits = min(end - 20, 9)
            if digits > 0, let fraction = number(20, digits) { result += Double(fraction) / pow(10, Double(digits)) }
        }
        return result
    }

    /// `2026-11-23 19:27:46` (UTC), or the text as it is if it does not parse.
    public static func short(_ text: String?) -> String {
        guard let text else { return "" }
        return seconds(text) != nil ? String(text.prefix(19)) : text
    }

    /// `0.4 s`, `12 s`, `3 min 4 s`, `2 h 5 min`.
    public static func duration(_ seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 10 { return String(format: "%.1f s", s) }
        if s < 60 { return "\(Int(s)) s" }
        if s < 3600 { return "\(Int(s) / 60) min \(Int(s) % 60) s" }
        return "\(Int(s) / 3600) h \(Int(s) % 3600 / 60) min"
    }

    /// How long between two stored timestamps; to `now` if the second is missing. Empty if the first is.
    public static func duration(from start: String?, to end: String?, now: Double) -> String {
        guard let start, let begin = seconds(start) else { return "" }
        let finish = end.flatMap(seconds) ?? now
        return duration(finish - begin)
    }
}
