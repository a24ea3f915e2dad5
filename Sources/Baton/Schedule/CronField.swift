/// One of the five fields of a cron expression, with the values it allows and the names it reads.
public enum CronField: Int, Sendable, CaseIterable {
    case minute, hour, dayOfMonth, month, dayOfWeek

    /// The name errors use, as crontab(5) calls the field.
    public var name: String {
        switch self {
        case .minute: "minute"
        case .hour: "hour"
        case .dayOfMonth: "day of month"
        case .month: "month"
        case .dayOfWeek: "day of week"
        }
    }

    /// The lowest and highest value written (day of week allows 7 for Sunday, read as 0).
    var bounds: ClosedRange<Int> {
        switch self {
        case .minute: 0...59
        case .hour: 0...23
        case .dayOfMonth: 1...31
        case .month: 1...12
        case .dayOfWeek: 0...7
        }
    }

    /// Names a value may be written as (three letters, any case), by value.
    var names: [String: Int] {
        switch self {
        case .month:
            ["JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12]
        case .dayOfWeek: ["SUN": 0, "MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6]
        default: [:]
        }
    }
}
