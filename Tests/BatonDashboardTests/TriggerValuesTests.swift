import Baton
import BatonDashboard
import BatonStore
import Testing

@testable import BatonServer

/// Schedules' and triggers' values without services: the schedule checks both the CLI and the API
/// make, the name cursor, and the Events page.
@Suite("schedule drafts, cursors and the events page")
struct TriggerValuesTests {
    @Test func aDraftNamesTheSettingAsItsCallerSpellsIt() {
        let cases: [(ScheduleDraft, String, String)] = [
            (
                ScheduleDraft(name: "s", cron: nil, timezone: nil, every: nil), "give --cron \"EXPR\" or --every DURATION",
                "give cron \"EXPR\" or every DURATION"
            ),
            (
                ScheduleDraft(name: "s", cron: "61 * * * *", timezone: nil, every: nil), "--cron: cron minute field '61'",
                "cron: cron minute field '61'"
            ),
            (
                ScheduleDraft(name: "s", cron: "0 2 * * *", timezone: "Mars/Olympus", every: nil), "--timezone 'Mars/Olympus'",
                "timezone 'Mars/Olympus'"
            ),
            (
                ScheduleDraft(name: "s", cron: nil, timezone: "UTC", every: "1m"), "--timezone only makes sense with --cron",
                "timezone only makes sense with cron"
            ),
            (ScheduleDraft(name: "s", cron: nil, timezone: nil, every: "500ms"), "--every '500ms' is shorter", "every '500ms' is shorter"),
            (
                ScheduleDraft(name: "s", cron: nil, timezone: nil, every: "1m", catchUp: "some"), "--catch-up must be none, last or all",
                "catch_up must be none"
            ),
            (ScheduleDraft(name: "s", cron: nil, timezone: nil, every: "1m", overlap: "wait"), "--overlap must be skip", "overlap must be skip"),
            (ScheduleDraft(name: "Bad:Name", cron: nil, timezone: nil, every: "1m"), "schedule name 'Bad:Name'", "schedule name 'Bad:Name'"),
        ]
        for (draft, options, members) in cases {
            guard case let .failure(cli) = draft.check(.options), case let .failure(api) = draft.check(.members) else {
                Issue.record("\(draft) passed")
                continue
            }
            #expect(cli.description.hasPrefix(options) && api.description.hasPrefix(members), "\(cli) / \(api)")
        }
        let every = try? ScheduleDraft(name: "tick", cron: nil, timezone: nil, every: "90s", overlap: "allow").check(.members).get()
        #expect(every?.everySeconds == 90 && every?.overlap == .allow && every?.catchUp == .last && every?.timezone == "UTC")
        let row = every?.row(document: ["nodes": [:]], graphName: "g", input: ["a": 1])
        #expect(row?.graph["name"] == "g" && row?.input == ["a": 1] && row?.cron == nil)
    }

    @Test func aNameCursorRoundTripsAndAForeignOneIsRefused() throws {
        for name in ["a", "nightly.report-2", "z_9"] { #expect(try PageCursor.name(PageCursor.text(name: name)) == name) }
        for bad in ["zz", "k6", "kzz", "n12"] { #expect(throws: APIError.self, "\(bad)") { try PageCursor.name(bad) } }
        let page = try PageCursor.page(["a", "b", "c"], name: { $0 }, after: nil, limit: 2)
        #expect(page.items == ["a", "b"])
        let next = try #require(page.next)
        #expect(try PageCursor.page(["a", "b", "c"], name: { $0 }, after: next, limit: 2).items == ["c"])
        #expect(try PageCursor.page(["a", "b", "c"], name: { $0 }, after: next, limit: 2).next == nil)
    }

    @Test func theEventsPageEscapesEverythingAndLinksTheRuns() throws {
        let hostile = PageTests.hostile
        let event = TriggerEventRow(
            id: hostile, type: "order.created", data: [:], receivedAt: "2026-11-27 16:02:11.5+00", tokenName: hostile, source: "127.0.0.1:5000",
            matched: ["gold", "all", "late"],
            runs: [
                .init(trigger: "gold", runID: "0a1b2c3d-0000-4000-8000-000000000000", error: nil, status: .succeeded),
                .init(trigger: "all", runID: nil, error: hostile),
            ])
        let trigger = TriggerRow(
            name: "gold", eventType: "order.created", graph: ["name": .string(hostile)],
            filters: [TriggerFilter(pointer: JSONPointer(tokens: ["tier"]), value: .string(hostile))])
        let html = EventsPage(events: [event], triggers: [trigger]).render(layout: PageLayout(viewer: .anonymous))
        PageTests.expectSafe(html)
        #expect(html.contains("href=\"/runs/0a1b2c3d-0000-4000-8000-000000000000\">0a1b2c3d</a>"))
        #expect(html.contains("data-status=\"succeeded\""))
        #expect(html.contains("late</span>: <span class=\"muted\">not started yet"), "a matched trigger with no run yet is shown")
        #expect(html.contains("aria-current=\"page\">Events</a>"))
        #expect(html.contains("1 event shown") && html.contains("1 trigger "))
        let none = EventsPage(events: [], triggers: []).render(layout: PageLayout(viewer: .anonymous))
        #expect(none.contains("No events yet") && none.contains("No triggers"))
    }
}
