import Baton
import BatonStore

/// The events received by `POST /api/v1/events`, newest first: each with its type, id, when and from
/// whom it came, the triggers it matched and the runs they started (or why not), and the triggers.
public struct EventsPage: Sendable {
    public var events: [TriggerEventRow]
    public var triggers: [TriggerRow]

    public init(events: [TriggerEventRow], triggers: [TriggerRow]) {
        self.events = events
        self.triggers = triggers
    }

    /// How many of the newest events the page shows.
    public static let shown = 100

    public func render(layout: PageLayout) -> String {
        let noEvents =
            "<tr class=\"empty\"><td colspan=\"5\">No events yet: post one to <code>POST /api/v1/events</code> (docs/api.md)</td></tr>"
        let noTriggers =
            "<tr class=\"empty\"><td colspan=\"4\">No triggers: add one with <code>baton trigger add NAME FILE --event TYPE</code></td></tr>"
        let body = """
            <div class="page-head"><h1>Events</h1></div>
            <p class="muted" id="events-summary">\(events.count) event\(events.count == 1 ? "" : "s") shown (the newest \(Self.shown) at most) · \
            \(triggers.count) trigger\(triggers.count == 1 ? "" : "s") · times in UTC</p>
            <div class="card"><h2>Received events</h2>
            <table class="events"><thead><tr><th>Received</th><th>Type</th><th>Id</th><th>From</th><th>Runs started</th></tr></thead>
            <tbody id="events-body">
            \(events.isEmpty ? noEvents : events.map(row).joined(separator: "\n"))
            </tbody></table></div>
            <div class="card"><h2>Triggers</h2>
            <table class="triggers"><thead><tr><th>Trigger</th><th>Event type</th><th>Filters</th><th>Graph</th></tr></thead>
            <tbody id="triggers-body">
            \(triggers.isEmpty ? noTriggers : triggers.map(triggerRow).joined(separator: "\n"))
            </tbody></table></div>
            """
        return layout.page(title: "Events", section: .events, body: body)
    }

    private func row(_ event: TriggerEventRow) -> String {
        let runs = event.runs.map { run -> String in
            let name = "<span class=\"mono\">\(HTML.escape(run.trigger))</span>"
            if let id = run.runID {
                let status = run.status.map { " " + PageLayout.badge($0.rawValue) } ?? ""
                return "\(name): <a class=\"mono\" href=\"/runs/\(HTML.escape(id))\">\(HTML.escape(String(id.prefix(8))))</a>\(status)"
            }
            return "\(name): <span class=\"error\">\(HTML.escape(run.error ?? "not started"))</span>"
        }
        let unstarted = event.matched.filter { name in !event.runs.contains { $0.trigger == name } }.map {
            "<span class=\"mono\">\(HTML.escape($0))</span>: <span class=\"muted\">not started yet (post the event again)</span>"
        }
        let all = runs + unstarted
        let from = [event.tokenName.map { "token " + $0 }, event.source].compactMap { $0 }.joined(separator: " · ")
        return """
            <tr data-event="\(HTML.escape(event.id))"><td class="time">\(HTML.escape(event.receivedAt))</td>\
            <td class="mono">\(HTML.escape(event.type))</td><td class="mono">\(HTML.escape(event.id))</td>\
            <td>\(HTML.escape(from.isEmpty ? "-" : from))</td>\
            <td class="runs">\(all.isEmpty ? "<span class=\"muted\">no trigger matched</span>" : all.joined(separator: "<br>"))</td></tr>
            """
    }

    private func triggerRow(_ trigger: TriggerRow) -> String {
        let filters = trigger.filters.isEmpty ? "-" : trigger.filters.map { HTML.escape($0.text) }.joined(separator: "<br>")
        return """
            <tr data-trigger="\(HTML.escape(trigger.name))"><td class="mono">\(HTML.escape(trigger.name))</td>\
            <td class="mono">\(HTML.escape(trigger.eventType))</td><td class="mono">\(filters)</td><td>\(HTML.escape(trigger.graphName))</td></tr>
            """
    }
}
