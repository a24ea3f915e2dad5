import Baton
import BatonStore

/// The schedules: each with when it fires, its rules, its last and next firing (UTC), skips and
/// errors, and links to its recent runs.
public struct SchedulesPage: Sendable {
    public var schedules: [ScheduleRow]
    /// Recent runs of each schedule, newest first, by schedule name.
    public var runs: [String: [ScheduleRun]]

    public init(schedules: [ScheduleRow], runs: [String: [ScheduleRun]]) {
        self.schedules = schedules
        self.runs = runs
    }

    /// How many recent runs each row links to.
    public static let runsShown = 5

    public func render(layout: PageLayout) -> String {
        let empty =
            "<tr class=\"empty\"><td colspan=\"7\">No schedules: add one with <code>baton schedule add NAME FILE --cron EXPR</code></td></tr>"
        let body = """
            <div class="page-head"><h1>Schedules</h1></div>
            <p class="muted" id="schedules-summary">\(schedules.count) schedule\(schedules.count == 1 ? "" : "s") · \
            \(schedules.filter(\.paused).count) paused · times in UTC</p>
            <div class="card">
            <table class="schedules"><thead><tr><th>Schedule</th><th>When</th><th>Rules</th><th>Last fired</th><th>Next</th>\
            <th>Recent runs</th><th>Notes</th></tr></thead>
            <tbody id="schedules-body">
            \(schedules.isEmpty ? empty : schedules.map(row).joined(separator: "\n"))
            </tbody></table></div>
            """
        return layout.page(title: "Schedules", section: .schedules, body: body)
    }

    private func row(_ s: ScheduleRow) -> String {
        let recent = (runs[s.name] ?? []).prefix(Self.runsShown).map { run in
            "<a class=\"mono\" href=\"/runs/\(HTML.escape(run.id))\" title=\"\(HTML.escape(run.key))\">\(HTML.escape(String(run.id.prefix(8))))</a> "
                + PageLayout.badge(run.status.rawValue)
        }
        var notes: [String] = []
        if s.skipped > 0 { notes.append("skipped \(s.skipped): \(HTML.escape(s.lastSkipReason ?? ""))") }
        if let error = s.lastError { notes.append("<span class=\"error\">\(HTML.escape(error))</span>") }
        let next = s.paused ? "paused" : s.nextFireAt.map(CivilDate.iso8601) ?? "soon"
        return """
            <tr data-schedule="\(HTML.escape(s.name))"><td class="mono">\(HTML.escape(s.name))</td><td>\(HTML.escape(s.when))</td>\
            <td>overlap \(HTML.escape(s.overlap.rawValue)) · catch-up \(HTML.escape(s.catchUp.rawValue))</td>\
            <td class="time">\(HTML.escape(s.lastFiredAt.map(CivilDate.iso8601) ?? "-"))</td><td class="time">\(HTML.escape(next))</td>\
            <td class="runs">\(recent.isEmpty ? "-" : recent.joined(separator: "<br>"))</td><td>\(notes.joined(separator: "<br>"))</td></tr>
            """
    }
}
