import BatonStore

/// The card of failed nodes grouped by procedure and error type, with the latest error of each
/// group and a link to its node: on the runs page for the runs listed, on a run page for the run.
/// Nothing when there are no failures.
struct FailuresCard {
    let groups: [FailureGroup]
    /// What the groups cover, after "Failures in": "the runs on this page", "this run".
    let scope: String
    /// Whether the links stay on the page (a run page selects the node) or open the run.
    let withinRun: Bool

    func render() -> String {
        guard !groups.isEmpty else { return "" }
        let rows = groups.map { g -> String in
            let node = HTML.escape(g.latestNode)
            let href = withinRun ? "#node=\(node)" : "/runs/\(HTML.escape(g.latestRunID))#node=\(node)"
            let type = g.errorType.map { "<span class=\"mono\">\(HTML.escape($0))</span>" } ?? "<span class=\"muted\">none</span>"
            return """
                <tr data-procedure="\(HTML.escape(g.procedure))" data-error-type="\(HTML.escape(g.errorType ?? ""))">\
                <td class="mono">\(HTML.escape(g.procedure))</td><td>\(type)</td><td>\(g.nodes)</td><td>\(g.runs)</td>\
                <td><a class="mono" href="\(href)" data-node="\(node)">\(node)</a>\
                <div class="row-error">\(HTML.escape(String((g.latestError ?? "").prefix(300))))</div></td></tr>
                """
        }
        return """
            <section class="card failures" id="failures"><div class="card-title">Failures in \(HTML.escape(scope)) \
            <span class="muted">failed nodes by procedure and the type of error it threw</span></div>
            <table><thead><tr><th>Procedure</th><th>Error type</th><th>Nodes</th><th>Runs</th><th>Latest</th></tr></thead>
            <tbody id="failures-body">
            \(rows.joined(separator: "\n"))
            </tbody></table></section>
            """
    }
}
