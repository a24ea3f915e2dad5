import Foundation

/// When a schedule is due: a cron expression read in an IANA time zone, or a fixed period from an
/// anchor. Times are seconds since the epoch; nothing here reads a clock.
///
/// Daylight saving: a cron wall time that does not exist (in a spring-forward gap) fires once, at the
/// first valid instant after the gap (02:30 on a day clocks go 02:00 -> 03:00 fires at 03:00, as
/// Vixie cron does; several wall times in the gap fire once between them). A wall time that happens
/// twice (fall-back) fires at its first occurrence only.
public enum ScheduleTiming: Sendable, Equatable {
    case cron(CronExpression, zone: TimeZone)
    /// Every `seconds`, at `anchor + k * seconds` (the anchor is the schedule's creation).
    case every(seconds: Double, anchor: Double)

    /// The zone named `identifier` (`Europe/Berlin`, `UTC`), or a one-line reason it is not one.
    public static func zone(named identifier: String) -> Result<TimeZone, ScheduleInputError> {
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else {
            return .failure(ScheduleInputError("--timezone '\(identifier)' is not an IANA time zone (such as Europe/Berlin or UTC)"))
        }
        return .success(zone)
    }

    /// The first due time strictly after `time`, or nil if there is none within nine years (a cron
    /// expression whose days never come, such as February 30th with a weekday).
    public func next(after time: Double) -> Double? {
        switch self {
        case let .every(seconds, anchor):
            guard time >= anchor else { return anchor }
            var k = ((time - anchor) / seconds).rounded(.down) + 1
            var due = Self.millis(anchor + k * seconds)
            while due <= time {
                k += 1
                due = Self.millis(anchor + k * seconds)
            }
            return due
        case let .cron(expression, zone):
            let t = Int(time.rounded(.down))
            let wallNow = t + offset(zone, t)
            let firstDay = Self.floorDiv(wallNow, 86400)
            for dayNumber in firstDay..<(firstDay + 366 * 9) {
                let date = CivilDate(days: dayNumber)
                guard expression.matchesDay(month: date.month, day: date.day, weekday: date.weekday) else { continue }
                for hour in 0..<24 where expression.hours[hour] {
                    for minute in 0..<60 where expression.minutes[minute] {
                        let wall = dayNumber * 86400 + hour * 3600 + minute * 60
                        // Far enough before now that no offset change can bring it after.
                        if wall < wallNow - 4 * 3600 { continue }
                        let instant = Self.instant(wall: wall, zone: zone)
                        if Double(instant) > time { return Double(instant) }
                    }
                }
            }
            return nil
        }
    }

    /// The instant of local wall time `wall` (seconds, counted as if in UTC): its first occurrence
    /// when it happens twice, the end of the gap when it does not happen at all.
    public static func instant(wall: Int, zone: TimeZone) -> Int {
        let before = offset(zone, wall - 86400)
        let after = offset(zone, wall + 86400)
        let valid = Set([before, after]).filter { offset(zone, wall - $0) == $0 }.map { wall - $0 }
        if let first = valid.min() { return first }
        // In a gap: the offset changes from `before` to `after` somewhere in (wall - after, wall - before].
        var low = wall - after
        var high = wall - before
        guard offset(zone, high) == after else { return high }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(zone, middle) == after { high = middle } else { low = middle }
        }
        return high
    }

    private static func offset(_ zone: TimeZone, _ instant: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant)))
    }

    private func offset(_ zone: TimeZone, _ instant: Int) -> Int { Self.offset(zone, instant) }

    private static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : (a - b + 1) / b }

    private static func millis(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
