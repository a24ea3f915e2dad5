import Baton
import BatonStore

/// One run: its summary, its graph drawn as `baton graph` draws it (each node clickable), the node
/// panel the script fills, the nodes as a table, and the admin buttons when admin actions are on.
public struct RunPage: Sendable {
    /// Nodes listed in the table below the graph at most (the graph and the API show all).
    public static let maxTableRows = 500

    public var run: RunRow
    public var counts: [NodeStatus: Int]
    /// The drawing, from `SVGRenderer` (every text in it already XML-escaped).
    public var svg: String
    public var nodes: [NodeRow]
    public var now: Double
    /// The run's failed nodes, by procedure and error type.
    public var failures: [FailureGroup]
    /// The run's nodes waiting for rate limits, per key.
    public var rateWaits: [RateWait] = []

    public init(run: RunRow, counts: [NodeStatus: Int], svg: String, nodes: [NodeRow], now: Double, failures: [FailureGroup] = []) {
        self.run = run
        self.counts = counts
        self.svg = svg
        self.nodes = nodes
        self.now = now
        self.failures = failures
    }

    public func render(layout: PageLayout) -> String {
        let id = HTML.escape(run.id)
        let available = Set(AdminAction.available(for: run.status))
        let pauses = DashboardHandlers.pauseActions(run)
        let actions =
            layout.mayOperate
            ? """
            <div class="actions" id="actions">\
            <button type="button" class="danger admin-action" data-action="cancel"\(available.contains(.cancel) ? "" : " hidden")>Cancel run</button>\
            <button type="button" class="admin-action" data-action="retry"\(available.contains(.retry) ? "" : " hidden")>Retry run</button>\
            <button type="button" class="admin-action" data-action="pause"\(pauses.contains("pause") ? "" : " hidden")>Pause run</button>\
            <button type="button" class="admin-action" data-action="resume"\(pauses.contains("resume") ? "" : " hidden")>Resume run</button>\
            <span id="action-message" class="action-message" role="status"></span></div>
            """ : ""
        var chips = ""
        for status in NodeStatus.allCases where (counts[status] ?? 0) > 0 {
            chips += "<span class=\"chip status-\(status.rawValue)\"><span class=\"dot\"></span>\(status.rawValue) <b>\(counts[status]!)</b></span>"
        }
        let table = nodes.prefix(Self.maxTableRows).map(row).joined(separator: "\n")
        let more =
            nodes.count > Self.maxTableRows
            ? "<p class=\"muted\">\(Self.maxTableRows) of \(nodes.count) nodes listed; /api/runs/\(id)/nodes has them all.</p>" : ""
        let body = """
            <div class="breadcrumbs"><a href="/">Runs</a> / <span class="mono">\(HTML.escape(String(run.id.prefix(8))))</span></div>
            <div class="page-head run-head">
            <div><h1 id="run-name">\(HTML.escape(run.name))</h1>
            <div class="run-id mono muted">\(id)</div></div>
            <div class="run-status" id="run-status">\(PageLayout.badge(run.status.rawValue))</div>
            \(actions)
            </div>
            <dl class="facts">
            <div><dt>Submitted</dt><dd id="run-submitted">\(HTML.escape(DisplayTime.short(run.submittedAt)))</dd></div>
            <div><dt>Started</dt><dd id="run-started">\(HTML.escape(DisplayTime.short(run.startedAt)))</dd></div>
            <div><dt>Finished</dt><dd id="run-finished">\(HTML.escape(DisplayTime.short(run.finishedAt)))</dd></div>
            <div><dt>Duration</dt><dd id="run-duration">\(HTML.escape(DisplayTime.duration(from: run.startedAt, to: run.finishedAt, now: now)))</dd></div>
            <div><dt>Nodes</dt><dd id="run-nodes">\(run.nodesDone) of \(run.nodeCount) done</dd></div>
            </dl>
            <div class="run-error" id="run-error"\(run.error == nil ? " hidden" : "")>\(HTML.escape(run.error ?? ""))</div>
            <div class="chips" id="node-counts">\(chips)</div>
            \(FailuresCard(groups: failures, scope: "this run", withinRun: true).render())
            \(RateWaitsCard(waits: rateWaits).render())
            <div class="run-layout">
            <section class="card graph-card"><div class="card-title">Graph <span class="muted">click a node for its details</span></div>
            <div class="graph" id="graph">\(svg)</div></section>
            <aside class="card node-panel" id="node-panel" aria-live="polite">
            <div class="panel-empty" id="panel-empty">Select a node in the graph or the table to see its input, output, error, attempts, \
            timings, worker, events, progress and logs.</div>
            <div id="panel-body" hidden></div>
            </aside>
            </div>
            \(TimelineCard().render())
            <section class="card"><div class="card-title">Nodes</div>
            <table class="nodes"><thead><tr><th>Node</th><th>Procedure</th><th>Status</th><th>Attempts</th><th>Worker</th><th>Time</th></tr></thead>
            <tbody id="nodes-body">
            \(table)
            </tbody></table>\(more)</section>
            """
        return layout.page(
            title: run.name, section: .runs, attributes: [("page", "run"), ("run", run.id), ("status", run.status.rawValue)], body: body)
    }

    private func row(_ node: NodeRow) -> String {
        """
        <tr class="node-row" data-node="\(HTML.escape(node.key))" data-status="\(HTML.escape(node.status))" tabindex="0">\
        <td class="mono">\(HTML.escape(node.key))</td><td class="mono muted">\(HTML.escape(node.procedure))</td>\
        <td>\(PageLayout.badge(node.status))</td><td>\(node.attempts)</td><td class="mono muted">\(HTML.escape(node.workerText ?? ""))</td>\
        <td class="time">\(node.seconds.map { HTML.escape(DisplayTime.duration($0)) } ?? "")</td></tr>
        """
    }
}
