import Foundation

/// Times as PostgreSQL's `timestamptz` keeps and shows them: to the microsecond.
enum MemoryTimestamp {
    /// `date` to the nearest microsecond, as a `timestamptz` column stores it.
    static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1_000_000).rounded() / 1_000_000)
    }

    /// `date` as `timestamptz::text` shows it in time zone UTC: `2026-01-02 03:04:05.5+00`.
    static func text(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        var seconds = time_t(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        let fraction = micros - Int64(seconds) * 1_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let s = String(value)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        var text =
            "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2)) "
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
        if fraction > 0 {
            var digits = pad(Int(fraction), 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "+00"
    }

    /// `date` as ISO 8601 text with microseconds, as `Store` writes times into events' details.
    static func iso(_ date: Date) -> String {
        let text = self.text(date)  // "2026-01-02 03:04:05.5+00"
        let seconds = text.dropLast(3)
        var parts = seconds.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 1 { parts.append("") }
        let micros = parts[1] + String(repeating: "0", count: 6 - parts[1].count)
        return parts[0].replacingOccurrences(of: " ", with: "T") + "." + micros + "Z"
    }
}
