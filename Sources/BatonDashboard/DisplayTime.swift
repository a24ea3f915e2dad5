import Foundation

/// Timestamps as PostgreSQL prints them (`2026-11-23 19:27:46.123456+00`, the store's sessions are
/// in UTC) or as ISO 8601 (`2026-11-23T19:27:46.123Z`, `...+05:30`) read, shown short, and durations in
/// words. The dashboard's pages and the CLI's `--server` path (the API's times) read times here.
public enum DisplayTime {
    /// Seconds since 1970 of a stored timestamp, to the microsecond, or nil if it is not one:
    /// `YYYY-MM-DD hh:mm:ss` (or `T` between), an optional fraction, then nothing, `Z`, or an offset
    /// `+hh`, `+hh:mm`, `+hhmm` or `+hh:mm:ss` (or `-`), which is subtracted.
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
        func at(_ index: Int, _ character: Character) -> Bool { index < scalars.count && scalars[index] == character.asciiValue }
        guard at(4, "-"), at(7, "-"), at(10, " ") || at(10, "T"), at(13, ":"), at(16, ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
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
        var i = 19
        if at(i, ".") {
            let end = scalars[(i + 1)...].firstIndex { $0 < 48 || $0 > 57 } ?? scalars.count
            let digits = min(end - i - 1, 9)
            if digits > 0, let fraction = number(i + 1, digits) { result += Double(fraction) / pow(10, Double(digits)) }
            i = end
        }
        guard let offset = offset(scalars[i...], number) else { return nil }
        return result - Double(offset)
    }

    /// The zone's offset east of UTC in seconds (`Z` or none is 0), or nil if the rest is not one.
    private static func offset(_ rest: ArraySlice<UInt8>, _ number: (Int, Int) -> Int?) -> Int? {
        guard let sign = rest.first else { return 0 }
        let i = rest.startIndex
        if sign == UInt8(ascii: "Z") { return rest.count == 1 ? 0 : nil }
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let hours = number(i + 1, 2) else { return nil }
        var seconds = hours * 3600
        switch rest.count {
        case 3: break
        case 5:
            guard let minutes = number(i + 3, 2) else { return nil }
            seconds += minutes * 60
        case 6, 9:
            guard rest[i + 3] == UInt8(ascii: ":"), let minutes = number(i + 4, 2) else { return nil }
            seconds += minutes * 60
            if rest.count == 9 {
                guard rest[i + 6] == UInt8(ascii: ":"), let extra = number(i + 7, 2) else { return nil }
                seconds += extra
            }
        default: return nil
        }
        return sign == UInt8(ascii: "-") ? -seconds : seconds
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
