import Baton
import Foundation
import Testing

/// Next due times with a fake clock (plain numbers) across daylight saving changes.
@Suite("ScheduleTiming")
struct ScheduleTimingTests {
    /// Seconds since the epoch of a UTC time.
    private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> Double {
        Double(CivilDate(year: y, month: mo, day: d).days * 86400 + h * 3600 + mi * 60)
    }

    private func cron(_ text: String, _ zone: String) throws -> ScheduleTiming {
        .cron(try CronExpression(parsing: text), zone: try ScheduleTiming.zone(named: zone).get())
    }

    /// The due times in (from, to].
    private func firings(_ timing: ScheduleTiming, from: Double, to: Double) -> [Double] {
        var out: [Double] = []
        var t = from
        while let next = timing.next(after: t), next <= to {
            out.append(next)
            t = next
        }
        return out
    }

    @Test func newYorkSpringForwardRunsAMissingTimeOnceAtTheEndOfTheGap() throws {
        // 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00 UTC); 02:30 does not exist.
        let t = try cron("30 2 * * *", "America/New_York")
        #expect(firings(t, from: utc(2026, 3, 7, 12, 0), to: utc(2026, 3, 9, 12, 0)) == [utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30)])
        // Several wall times in the gap fire once between them, at 03:00 EDT.
        let quarter = try cron("*/15 * * * *", "America/New_York")
        #expect(
            firings(quarter, from: utc(2026, 3, 8, 6, 40), to: utc(2026, 3, 8, 7, 20))
                == [utc(2026, 3, 8, 6, 45), utc(2026, 3, 8, 7, 0), utc(2026, 3, 8, 7, 15)])
    }

    @Test func newYorkFallBackRunsARepeatedTimeAtItsFirstOccurrenceOnly() throws {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00 UTC); 01:30 happens at 05:30 and 06:30 UTC.
        let t = try cron("30 1 * * *", "America/New_York")
        #expect(firings(t, from: utc(2026, 10, 31, 12, 0), to: utc(2026, 11, 2, 12, 0)) == [utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)])
        let hourly = try cron("0 * * * *", "America/New_York")
        #expect(firings(hourly, from: utc(2026, 11, 1, 4, 30), to: utc(2026, 11, 1, 7, 30)) == [utc(2026, 11, 1, 5, 0), utc(2026, 11, 1, 7, 0)])
    }

    @Test func berlinBothChanges() throws {
        let t = try cron("30 2 * * *", "Europe/Berlin")
        // 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC).
        #expect(firings(t, from: utc(2026, 3, 28, 12, 0), to: utc(2026, 3, 30, 12, 0)) == [utc(2026, 3, 29, 1, 0), utc(2026, 3, 30, 0, 30)])
        // 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:30 happens at 00:30 and 01:30 UTC.
        #expect(firings(t, from: utc(2026, 10, 24, 12, 0), to: utc(2026, 10, 26, 12, 0)) == [utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)])
    }

    @Test func sydneyInTheSouthernHemisphere() throws {
        let t = try cron("30 2 * * *", "Australia/Sydney")
        // 2026-04-05: 03:00 AEDT becomes 02:00 AEST (16:00 UTC the day before); 02:30 happens twice.
        #expect(firings(t, from: utc(2026, 4, 4, 0, 0), to: utc(2026, 4, 6, 0, 0)) == [utc(2026, 4, 4, 15, 30), utc(2026, 4, 5, 16, 30)])
        // 2026-10-04: 02:00 AEST becomes 03:00 AEDT (16:00 UTC the day before); 02:30 does not exist.
        #expect(firings(t, from: utc(2026, 10, 3, 0, 0), to: utc(2026, 10, 5, 0, 0)) == [utc(2026, 10, 3, 16, 0), utc(2026, 10, 4, 15, 30)])
    }

    @Test func kolkataHasAHalfHourOffsetAndNoChanges() throws {
        let t = try cron("0 9 * * MON-FRI", "Asia/Kolkata")
        // Friday 2026-03-06 and Monday 2026-03-09, 09:00 IST = 03:30 UTC; no weekend.
        #expect(firings(t, from: utc(2026, 3, 6, 0, 0), to: utc(2026, 3, 9, 12, 0)) == [utc(2026, 3, 6, 3, 30), utc(2026, 3, 9, 3, 30)])
    }

    /// A year of every half hour in New York: each wall time once, except the gap's two (02:00 and
    /// 02:30), which fire with 03:00 as one; strictly increasing, never two on one instant.
    @Test func aYearOfHalfHoursFiresEachWallTimeOnce() throws {
        let t = try cron("*/30 * * * *", "America/New_York")
        let all = firings(t, from: utc(2026, 1, 1, 5, 0) - 1, to: utc(2027, 1, 1, 5, 0) - 1)
        #expect(all.count == 365 * 48 - 2)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func leapDayAndBothDayFields() throws {
        let leap = try cron("0 0 29 2 *", "UTC")
        #expect(leap.next(after: utc(2026, 3, 1, 0, 0)) == utc(2028, 2, 29, 0, 0))
        // The 13th or any Friday: Friday 2026-03-06 comes before the 13th.
        let either = try cron("0 12 13 * FRI", "UTC")
        #expect(either.next(after: utc(2026, 3, 1, 0, 0)) == utc(2026, 3, 6, 12, 0))
    }

    @Test func everyCountsFromItsAnchor() {
        let t = ScheduleTiming.every(seconds: 2, anchor: 100)
        #expect(t.next(after: 50) == 100)
        #expect(t.next(after: 100) == 102)
        #expect(t.next(after: 101.5) == 102)
        #expect(firings(t, from: 100, to: 110) == [102, 104, 106, 108, 110])
    }

    @Test func badZonesAreRefused() {
        #expect(throws: ScheduleInputError.self) { try ScheduleTiming.zone(named: "Mars/Olympus").get() }
        #expect(throws: ScheduleInputError.self) { try ScheduleTiming.zone(named: "").get() }
    }

    @Test func dueTimesAsISO8601() {
        #expect(CivilDate.iso8601(utc(2026, 3, 8, 7, 0)) == "2026-03-08T07:00:00Z")
        #expect(CivilDate.iso8601(utc(2026, 3, 8, 7, 0) + 1.25) == "2026-03-08T07:00:01.250Z")
        #expect(CivilDate(days: CivilDate(year: 2028, month: 2, day: 29).days) == CivilDate(year: 2028, month: 2, day: 29))
        #expect(CivilDate(year: 2026, month: 11, day: 26).weekday == 4)
    }
}
