import BatonStore

/// `/audit`: the newest entries of `baton.audit` (when, token, action, target, source, status), for
/// tokens with the `admin` scope. Rendered on the server; no script.
public struct AuditPage: Sendable {
    /// Entries shown, at most.
    public static let shown = 200

    public var entries: [AuditRow]

    public init(entries: [AuditRow]) { self.entries = entries }

    public func render(layout: PageLayout) -> String {
        let rows = entries.map { e in
            let status = e.status.map(String.init) ?? "—"
            let failed = (e.status ?? 0) >= 400 ? " class=\"audit-refused\"" : ""
            return """
                <tr\(failed) data-audit="\(e.id)"><td class="mono">\(HTML.escape(e.at))</td><td>\(HTML.escape(e.tokenName ?? "(database login)"))</td>\
                <td class="mono">\(HTML.escape(e.action))</td><td class="mono">\(HTML.escape(e.target ?? "—"))</td>\
                <td class="mono">\(HTML.escape(e.source ?? "—"))</td><td>\(status)</td></tr>
                """
        }.joined(separator: "\n")
        let empty = "<tr class=\"empty\"><td colspan=\"6\">Nothing recorded yet: writes through the API and the dashboard appear here</td></tr>"
        let body = """
            <div class="page-head"><h1>Audit</h1></div>
            <p class="muted" id="audit-summary">The newest \(entries.count) entr\(entries.count == 1 ? "y" : "ies") of <code>baton.audit</code>\
             (at most \(Self.shown); all of them: <code>GET /api/v1/audit</code>)</p>
            <div class="card">
            <table class="audit"><thead><tr><th>When (UTC)</th><th>Token</th><th>Action</th><th>Target</th><th>Source</th><th>Status</th></tr></thead>
            <tbody id="audit-body">
            \(entries.isEmpty ? empty : rows)
            </tbody></table></div>
            """
        return layout.page(title: "Audit", section: .audit, body: body)
    }
}
