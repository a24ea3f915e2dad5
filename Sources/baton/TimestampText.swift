import Foundation

/// PostgreSQL's `timestamptz` text (`2026-11-27 17:29:31.661597+00`) or ISO 8601 (`...T...Z`) as
/// seconds since 1970, to the microsecond: how the API's event times become a timeline's.
enum TimestampText {
    static func seconds(_ text: String) -> Double? {
        let chars = Array(text.utf8)
        guard chars.count >= 19, chars[10] == UInt8(ascii: " ") || chars[10] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: chars[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            var scale = 0.1
            i += 1
            while i < chars.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(chars[i]) {
                fraction += Double(chars[i] - UInt8(ascii: "0")) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < chars.count, chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") {
            let sign = chars[i] == UInt8(ascii: "-") ? -1 : 1
            let zone = String(decoding: chars[(i + 1)...], as: UTF8.self).split(separator: ":").compactMap { Int($0) }
            guard let hours = zone.first else { return nil }
            offset = sign * (hours * 3600 + (zone.count > 1 ? zone[1] * 60 : 0))
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(timegm(&parts) - offset) + fraction
    }
}
