/// A calendar date (proleptic Gregorian) and its day number since 1970-01-01, by arithmetic alone
/// (Howard Hinnant's algorithms): wall-clock times are counted in seconds as if in UTC, and the
/// zone's offset is applied separately (`ScheduleTiming`).
public struct CivilDate: Sendable, Equatable, Comparable {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` after 1970-01-01.
    public init(days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    public var days: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 is Sunday.
    public var weekday: Int { ((days % 7) + 11) % 7 }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.days < b.days }

    /// `seconds` since the epoch as ISO-8601 UTC, `2026-03-08T07:00:00Z`, with milliseconds only when
    /// there are some: the text of a due time in an idempotency key.
    public static func iso8601(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let whole = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = millis - whole * 1000
        let dayNumber = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
        let date = CivilDate(days: dayNumber)
        let s = whole - dayNumber * 86400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(date.year)-\(two(date.month))-\(two(date.day))T\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
        if fraction != 0 {
            let digits = String(fraction + 1000).dropFirst()
            text += "." + digits
        }
        return text + "Z"
    }
}
