/// The frame of every page: head (the stylesheet and script, both served by the dashboard itself),
/// the top bar with its links, and where the admin token is entered when admin actions are on.
public struct PageLayout: Sendable {
    public enum Section: String, Sendable { case runs, workers, schedules, events }

    public var adminEnabled: Bool

    public init(adminEnabled: Bool) { self.adminEnabled = adminEnabled }

    /// A whole page. `attributes` go on `<body>` as `data-NAME="VALUE"` (escaped) for the script.
    public func page(title: String, section: Section, attributes: [(String, String)] = [], body: String) -> String {
        let data =
            ([("page", attributes.first { $0.0 == "page" }?.1 ?? section.rawValue), ("admin", String(adminEnabled))]
            + attributes.filter { $0.0 != "page" })
            .map { " data-\($0.0)=\"\(HTML.escape($0.1))\"" }.joined()
        func link(_ to: Section, _ label: String, _ href: String) -> String {
            "<a href=\"\(href)\"\(to == section ? " class=\"active\" aria-current=\"page\"" : "")>\(label)</a>"
        }
        let admin =
            adminEnabled
            ? """
            <div class="admin" id="admin">
            <form id="admin-form" class="admin-form"><label for="admin-token">Admin token</label>\
            <input id="admin-token" type="password" autocomplete="off" placeholder="paste to enable actions">\
            <button type="submit">Use</button></form>
            <div id="admin-ready" class="admin-ready" hidden><span class="dot"></span>Admin actions enabled \
            <button type="button" id="admin-forget" class="link">forget token</button></div>
            </div>
            """ : "<div class=\"admin read-only\" title=\"start baton dashboard with --admin-token to allow cancel and retry\">read-only</div>"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(HTML.escape(title)) · Baton</title>
            <link rel="stylesheet" href="/assets/dashboard.css">
            <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
            <script src="/assets/dashboard.js" defer></script>
            </head>
            <body\(data)>
            <header class="topbar">
            <a class="brand" href="/"><span class="logo" aria-hidden="true"></span>Baton</a>
            <nav>\(link(.runs, "Runs", "/"))\(link(.workers, "Workers", "/workers"))\(link(.schedules, "Schedules", "/schedules"))\(link(.events, "Events", "/events"))</nav>
            \(admin)
            </header>
            <main>
            \(body)
            </main>
            </body>
            </html>

            """
    }

    /// A status as a colored badge (`data-status` for the script and tests).
    public static func badge(_ status: String) -> String {
        "<span class=\"badge status-\(HTML.escape(status))\" data-status=\"\(HTML.escape(status))\">\(HTML.escape(status))</span>"
    }
}
