/// A five-field cron expression (minute hour day-of-month month day-of-week) as crontab(5) reads it:
/// `*`, values, ranges `1-5`, lists `1,3,5`, steps `*/15` and `1-10/2`, month names JAN-DEC and day
/// names SUN-SAT, 0 or 7 for Sunday. When both day fields are restricted (neither starts with `*`),
/// a day matches if either does; otherwise both must (a `*` field allows every day, `*/2` every
/// other one), as Vixie cron does.
public struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    /// Allowed values of each field, indexed by value (day of week: 0 is Sunday, 7 folded into 0).
    public let minutes: [Bool]
    public let hours: [Bool]
    public let daysOfMonth: [Bool]
    public let months: [Bool]
    public let daysOfWeek: [Bool]
    public let dayOfMonthRestricted: Bool
    public let dayOfWeekRestricted: Bool
    /// The expression as written.
    public let description: String

    /// Parses `text`; throws naming the field and the part of it that is wrong.
    public init(parsing text: String) throws(CronError) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw CronError(
                field: nil, text: text,
                problem: "has \(fields.count) field\(fields.count == 1 ? "" : "s"), needs 5 (minute hour day-of-month month day-of-week)")
        }
        minutes = try Self.values(fields[0], .minute)
        hours = try Self.values(fields[1], .hour)
        daysOfMonth = try Self.values(fields[2], .dayOfMonth)
        months = try Self.values(fields[3], .month)
        var week = try Self.values(fields[4], .dayOfWeek)
        if week[7] { week[0] = true }
        week[7] = false
        daysOfWeek = week
        dayOfMonthRestricted = !fields[2].hasPrefix("*")
        dayOfWeekRestricted = !fields[4].hasPrefix("*")
        description = fields.joined(separator: " ")
        // A day of month that no chosen month has (`0 0 30 2 *`) would never fire.
        if dayOfMonthRestricted && !dayOfWeekRestricted {
            let longest = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            let firstDay = daysOfMonth.firstIndex(of: true) ?? 1
            guard (1...12).contains(where: { months[$0] && longest[$0 - 1] >= firstDay }) else {
                throw CronError(field: .dayOfMonth, text: fields[2], problem: "no chosen month has that day, so it would never fire")
            }
        }
    }

    /// Whether the expression fires on a day (`weekday` 0 is Sunday).
    public func matchesDay(month: Int, day: Int, weekday: Int) -> Bool {
        guard months[month] else { return false }
        if dayOfMonthRestricted && dayOfWeekRestricted { return daysOfMonth[day] || daysOfWeek[weekday] }
        return daysOfMonth[day] && daysOfWeek[weekday]
    }

    private static func values(_ text: String, _ field: CronField) throws(CronError) -> [Bool] {
        var allowed = [Bool](repeating: false, count: field.bounds.upperBound + 1)
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !part.isEmpty else { throw CronError(field: field, text: text, problem: "has an empty list item") }
            var range = part
            var step = 1
            if let slash = part.firstIndex(of: "/") {
                range = String(part[..<slash])
                let stepText = String(part[part.index(after: slash)...])
                guard let n = Int(stepText), stepText.allSatisfy(\.isASCII), n >= 1 else {
                    throw CronError(field: field, text: part, problem: "step '\(stepText)' must be a whole number of at least 1")
                }
                step = n
            }
            let low: Int
            let high: Int
            if range == "*" {
                (low, high) = (field.bounds.lowerBound, field == .dayOfWeek ? 6 : field.bounds.upperBound)
            } else if let dash = range.firstIndex(of: "-") {
                low = try value(String(range[..<dash]), field, part)
                high = try value(String(range[range.index(after: dash)...]), field, part)
                guard low <= high else {
                    throw CronError(field: field, text: part, problem: "range runs backwards (\(low) is after \(high))")
                }
            } else {
                low = try value(range, field, part)
                // `5/15` means from 5 to the end in steps, as Vixie cron reads it.
                high = step > 1 ? field.bounds.upperBound : low
            }
            for v in stride(from: low, through: high, by: step) { allowed[v] = true }
        }
        return allowed
    }

    private static func value(_ text: String, _ field: CronField, _ part: String) throws(CronError) -> Int {
        if let named = field.names[text.uppercased()] { return named }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text) else {
            let hint =
                field.names.isEmpty
                ? "a number from \(field.bounds.lowerBound) to \(field.bounds.upperBound)"
                : "a number from \(field.bounds.lowerBound) to \(field.bounds.upperBound) or a name such as \(field == .month ? "JAN" : "MON")"
            throw CronError(field: field, text: part, problem: "'\(text)' is not \(hint)")
        }
        guard field.bounds.contains(n) else {
            throw CronError(
                field: field, text: part, problem: "\(n) is out of range (\(field.bounds.lowerBound)-\(field.bounds.upperBound))")
        }
        return n
    }
}
