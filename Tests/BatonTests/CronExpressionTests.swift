import Baton
import Testing

@Suite("CronExpression")
struct CronExpressionTests {
    private func values(_ flags: [Bool]) -> [Int] { flags.indices.filter { flags[$0] } }

    @Test func readsRangesListsStepsAndNames() throws {
        let c = try CronExpression(parsing: "*/15 1-10/3 1,15 JAN-mar MON-FRI")
        #expect(values(c.minutes) == [0, 15, 30, 45])
        #expect(values(c.hours) == [1, 4, 7, 10])
        #expect(values(c.daysOfMonth) == [1, 15])
        #expect(values(c.months) == [1, 2, 3])
        #expect(values(c.daysOfWeek) == [1, 2, 3, 4, 5])
        #expect(c.dayOfMonthRestricted && c.dayOfWeekRestricted)
    }

    @Test func sevenIsSundayAndAStartWithoutRangeRunsToTheEnd() throws {
        #expect(values(try CronExpression(parsing: "0 0 * * 7").daysOfWeek) == [0])
        #expect(values(try CronExpression(parsing: "0 0 * * 5-7").daysOfWeek) == [0, 5, 6])
        #expect(values(try CronExpression(parsing: "50/5 * * * *").minutes) == [50, 55])
        #expect(values(try CronExpression(parsing: "0 0 * * */2").daysOfWeek) == [0, 2, 4, 6])
    }

    /// Vixie cron: both day fields restricted means either; a field starting with `*` means both must match.
    @Test func dayFieldsCombineAsVixieCronDoes() throws {
        let either = try CronExpression(parsing: "0 0 13 * FRI")
        #expect(either.matchesDay(month: 3, day: 13, weekday: 2))
        #expect(either.matchesDay(month: 3, day: 6, weekday: 5))
        #expect(!either.matchesDay(month: 3, day: 7, weekday: 6))
        let both = try CronExpression(parsing: "0 0 */2 * FRI")
        #expect(!both.matchesDay(month: 3, day: 6, weekday: 5))
        #expect(both.matchesDay(month: 3, day: 7, weekday: 5))
        #expect(!both.matchesDay(month: 3, day: 7, weekday: 6))
        #expect(!(try CronExpression(parsing: "0 0 * JUN *")).matchesDay(month: 5, day: 1, weekday: 1))
    }

    @Test(arguments: [
        ("* * * *", "cron expression '* * * *': has 4 fields, needs 5 (minute hour day-of-month month day-of-week)"),
        ("60 * * * *", "cron minute field '60': 60 is out of range (0-59)"),
        ("* 24 * * *", "cron hour field '24': 24 is out of range (0-23)"),
        ("* * 0 * *", "cron day of month field '0': 0 is out of range (1-31)"),
        ("* * * FOO *", "cron month field 'FOO': 'FOO' is not a number from 1 to 12 or a name such as JAN"),
        ("* * * * 8", "cron day of week field '8': 8 is out of range (0-7)"),
        ("*/0 * * * *", "cron minute field '*/0': step '0' must be a whole number of at least 1"),
        ("5-1 * * * *", "cron minute field '5-1': range runs backwards (5 is after 1)"),
        ("1,,2 * * * *", "cron minute field '1,,2': has an empty list item"),
        ("x * * * *", "cron minute field 'x': 'x' is not a number from 0 to 59"),
        ("0 0 30 2 *", "cron day of month field '30': no chosen month has that day, so it would never fire"),
    ])
    func refusesBadTextNamingTheField(text: String, message: String) {
        #expect(throws: CronError.self) { try CronExpression(parsing: text) }
        do {
            _ = try CronExpression(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }
}
