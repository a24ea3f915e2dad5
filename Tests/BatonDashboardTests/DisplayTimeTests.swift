import BatonDashboard
import Testing

/// `DisplayTime.seconds` reads PostgreSQL's `timestamptz` text and ISO 8601: the dashboard's stored
/// times and the API's times that `baton --server` turns into a timeline.
@Suite("display times")
struct DisplayTimeTests {
    @Test func postgresText() throws {
        #expect(DisplayTime.seconds("1970-01-01 00:01:40+00") == 100)
        #expect(DisplayTime.seconds("1970-01-01 00:01:40") == 100)
        let at = try #require(DisplayTime.seconds("2026-11-27 17:29:31.661597+00"))
        #expect(abs(at - 1_795_800_571.661597) < 1e-6)
        #expect(DisplayTime.seconds("1970-01-01 00:01:40.5+00") == 100.5)
    }

    @Test func isoText() {
        #expect(DisplayTime.seconds("1970-01-01T00:01:40Z") == 100)
        #expect(DisplayTime.seconds("1970-01-01T00:01:40.25Z") == 100.25)
        #expect(DisplayTime.seconds("1970-01-01T00:01:40.250+00:00") == 100.25)
    }

    /// An offset east of UTC is subtracted, one west added, in each form PostgreSQL and ISO 8601 write.
    @Test(arguments: [
        "1970-01-01 02:01:40+02", "1970-01-01 02:01:40+02:00", "1970-01-01T02:01:40+0200", "1969-12-31 22:01:40-02",
        "1969-12-31T22:01:40-02:00", "1970-01-01 05:31:40+05:30", "1969-12-31 20:31:40-03:30", "1970-01-01 00:01:50+00:00:10",
    ])
    func offsets(text: String) {
        #expect(DisplayTime.seconds(text) == 100, "\(text)")
    }

    @Test(arguments: [
        "nonsense", "", "2026-11-27 17:29", "2026-11-27X17:29:31+00", "2026/11/27 17:29:31+00", "2026-11-27 17:29:31+0",
        "2026-11-27 17:29:31 UTC", "2026-11-27 17:29:31Zx", "2026-11-27 17:29:31+aa", "2026-11-27 17:29:31+02:0",
        "2026-11-27 17:29:31.5x", "infinity",
    ])
    func notTimes(text: String) {
        #expect(DisplayTime.seconds(text) == nil, "\(text)")
        #expect(DisplayTime.short(text) == text)
    }

    @Test func short() {
        #expect(DisplayTime.short("2026-11-23 19:35:41.806314+00") == "2026-11-23 19:35:41")
        #expect(DisplayTime.short(nil) == "")
    }
}
