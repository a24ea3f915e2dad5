import Baton
import BatonDashboard
import BatonStore
import Testing

/// The schedules page escapes every stored value and links each schedule's recent runs.
@Suite("schedules page")
struct SchedulesPageTests {
    @Test func listsSchedulesWithTheirFiringsAndRuns() {
        var schedule = ScheduleRow(
            name: "nightly", graph: [:], input: nil, cron: PageTests.hostile, everySeconds: nil, timezone: "Europe/Berlin",
            overlap: .queue, catchUp: .all)
        schedule.lastFiredAt = 1_772_933_400  // 2026-03-08T01:30:00Z
        schedule.nextFireAt = 1_773_019_800
        schedule.skipped = 2
        schedule.lastSkipReason = PageTests.hostile
        schedule.lastError = PageTests.hostile
        let run = ScheduleRun(
            id: "0a1b2c3d-0000-4000-8000-000000000000", status: .succeeded, key: "schedule:nightly:2026-03-08T01:30:00Z",
            submittedAt: 1_772_933_400.2)
        let html = SchedulesPage(schedules: [schedule], runs: ["nightly": [run]]).render(layout: PageLayout(viewer: .anonymous))
        PageTests.expectSafe(html)
        #expect(html.contains("1 schedule · 0 paused"))
        #expect(html.contains("<td class=\"time\">2026-03-08T01:30:00Z</td><td class=\"time\">2026-03-09T01:30:00Z</td>"))
        #expect(html.contains("href=\"/runs/0a1b2c3d-0000-4000-8000-000000000000\""))
        #expect(html.contains("overlap queue · catch-up all"))
        #expect(html.contains("aria-current=\"page\">Schedules</a>"))
        let none = SchedulesPage(schedules: [], runs: [:]).render(layout: PageLayout(viewer: .anonymous))
        #expect(none.contains("No schedules"))
    }
}
