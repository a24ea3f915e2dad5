import Baton
import BatonStore

/// The runs list: counts by status (each a filter), the name and status filter, a page of runs
/// newest first, and links to the other pages. The script refreshes the counts and rows live.
public struct RunsPage: Sendable {
    public var query: RunsQuery
    public var runs: [RunRow]
    public var total: Int
    public var counts: [RunStatus: Int]
    /// Seconds since 1970, for the running runs' durations.
    public var now: Double
    /// The failed nodes of the runs listed, by procedure and error type.
    public var failures: [FailureGroup]

    public init(query: RunsQuery, runs: [RunRow], total: Int, counts: [RunStatus: Int], now: Double, failures: [FailureGroup] = []) {
        self.query = query
        self.runs = runs
        self.total = total
        self.counts = counts
        self.now = now
        self.failures = failures
    }

    public func render(layout: PageLayout) -> String {
        let all = counts.values.reduce(0, +)
        var chips = "<a class=\"chip\(query.status == nil ? " selected" : "")\" href=\"/\(nameOnly())\">All <b id=\"count-all\">\(all)</b></a>"
        for status in RunStatus.allCases {
            var q = query
            q.status = status
            q.page = 1
            chips += """
                <a class="chip status-\(status.rawValue)\(query.status == status ? " selected" : "")" href="/\(HTML.escape(q.queryString()))">\
                <span class="dot"></span>\(status.rawValue) <b id="count-\(status.rawValue)">\(counts[status] ?? 0)</b></a>
                """
        }
        var options = "<option value=\"\">any status</option>"
        for status in RunStatus.allCases {
            options += "<option value=\"\(status.rawValue)\"\(query.status == status ? " selected" : "")>\(status.rawValue)</option>"
        }
        let rows = runs.map(row).joined(separator: "\n")
        let empty =
            "<tr class=\"empty\"><td colspan=\"6\">No runs\(query.status != nil || query.name != nil ? " match this filter" : " yet")</td></tr>"
        let pages = query.pageCount(total: total)
        let previous =
            query.page > 1 ? "<a class=\"button\" rel=\"prev\" href=\"/\(HTML.escape(query.queryString(page: query.page - 1)))\">← Newer</a>" : ""
        let next =
            query.page < pages ? "<a class=\"button\" rel=\"next\" href=\"/\(HTML.escape(query.queryString(page: query.page + 1)))\">Older →</a>" : ""
        let body = """
            <div class="page-head"><h1>Runs</h1><div class="chips" id="counts">\(chips)</div></div>
            <form class="filter" method="get" action="/">
            <input type="search" name="name" value="\(HTML.escape(query.name ?? ""))" placeholder="Filter by name" aria-label="name contains" maxlength="\(RunsQuery.maxNameLength)">
            <select name="status" aria-label="status">\(options)</select>
            \(query.perPage != RunsQuery.defaultPerPage ? "<input type=\"hidden\" name=\"per_page\" value=\"\(query.perPage)\">" : "")
            <button type="submit">Filter</button>
            \(query.status != nil || query.name != nil ? "<a class=\"link\" href=\"/\">clear</a>" : "")
            </form>
            <div class="card">
            <table class="runs">
            <thead><tr><th>Run</th><th>Status</th><th>Progress</th><th>Submitted</th><th>Duration</th><th>Id</th></tr></thead>
            <tbody id="runs-body">
            \(runs.isEmpty ? empty : rows)
            </tbody>
            </table>
            </div>
            <div class="pager"><span id="page-info">\(total) run\(total == 1 ? "" : "s") · page \(query.page) of \(pages)</span>\
            <span class="pager-links">\(previous)\(next)</span></div>
            \(FailuresCard(groups: failures, scope: "the runs on this page", withinRun: false).render())
            """
        return layout.page(title: "Runs", section: .runs, attributes: [("query", query.queryString())], body: body)
    }

    private func nameOnly() -> String {
        var q = RunsQuery()
        q.name = query.name
        q.perPage = query.perPage
        return HTML.escape(q.queryString())
    }

    private func row(_ run: RunRow) -> String {
        let percent = run.nodeCount == 0 ? 0 : Int((Double(run.nodesDone) / Double(run.nodeCount) * 100).rounded())
        return """
            <tr data-run="\(HTML.escape(run.id))" data-status="\(run.status.rawValue)">\
            <td><a class="run-name" href="/runs/\(HTML.escape(run.id))">\(HTML.escape(run.name))</a>\
            \(run.error.map { "<div class=\"row-error\">\(HTML.escape(String($0.prefix(200))))</div>" } ?? "")</td>\
            <td>\(PageLayout.badge(run.status.rawValue))</td>\
            <td class="progress-cell"><progress class="status-\(run.status.rawValue)" max="\(max(run.nodeCount, 1))" value="\(run.nodesDone)" \
            title="\(percent)%"></progress><span class="muted">\(run.nodesDone)/\(run.nodeCount)</span></td>\
            <td class="time">\(HTML.escape(DisplayTime.short(run.submittedAt)))</td>\
            <td class="time">\(HTML.escape(DisplayTime.duration(from: run.startedAt, to: run.finishedAt, now: now)))</td>\
            <td class="mono muted">\(HTML.escape(String(run.id.prefix(8))))</td></tr>
            """
    }
}
