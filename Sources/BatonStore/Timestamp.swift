import Foundation

/// Timestamps as ISO 8601 text with microseconds, which PostgreSQL's timestamptz keeps exactly.
enum Timestamp {
    static func text(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        var seconds = time_t(t.rounded(.down))
        var micros = Int(((t - Double(seconds)) * 1_000_000).rounded())
        if micros >= 1_000_000 { seconds += 1; micros -= 1_000_000 }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let s = String(value)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(micros, 6))Z"
    }
}
