/// The frame of every page: head (the stylesheet and script, both served by the dashboard itself),
/// the top bar with its links, and who is signed in (with a sign-out button) or a sign-in link.
public struct PageLayout: Sendable {
    public enum Section: String, Sendable { case runs, workers, schedules, events, audit, login }

    /// Who the page is for; nil on the sign-in page.
    public var viewer: Viewer?

    public init(viewer: Viewer?) { self.viewer = viewer }

    /// Whether the page shows cancel, retry and signal (the token holds `operate`).
    public var mayOperate: Bool { viewer?.may(.operate) ?? false }

    /// A whole page. `attributes` go on `<body>` as `data-NAME="VALUE"` (escaped) for the script.
    public func page(title: String, section: Section, attributes: [(String, String)] = [], body: String) -> String {
        let data =
            ([("page", attributes.first { $0.0 == "page" }?.1 ?? section.rawValue), ("operate", String(mayOperate))]
            + attributes.filter { $0.0 != "page" })
            .map { " data-\($0.0)=\"\(HTML.escape($0.1))\"" }.joined()
        func link(_ to: Section, _ label: String, _ href: String) -> String {
            "<a href=\"\(href)\"\(to == section ? " class=\"active\" aria-current=\"page\"" : "")>\(label)</a>"
        }
        let account: String
        if let viewer, let name = viewer.name {
            let scopes = viewer.scopes.sorted().map(\.rawValue).joined(separator: ", ")
            let signOut =
                viewer.hasSession
                ? "<form method=\"post\" action=\"/logout\" class=\"sign-out\"><button type=\"submit\" class=\"link\" id=\"sign-out\">Sign out</button></form>"
                : ""
            account = """
                <div class="account" id="account"><span class="dot"></span><span>\(HTML.escape(name))</span>\
                <span class="scopes" id="scopes">\(HTML.escape(scopes))</span>\(signOut)</div>
                """
        } else if viewer != nil {
            account = "<div class=\"account read-only\" id=\"account\">read-only · <a href=\"/login\">Sign in</a></div>"
        } else {
            account = ""
        }
        let audit = viewer?.may(.admin) == true ? link(.audit, "Audit", "/audit") : ""
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
            <nav>\(link(.runs, "Runs", "/"))\(link(.workers, "Workers", "/workers"))\(link(.schedules, "Schedules", "/schedules"))\(link(.events, "Events", "/events"))\(audit)</nav>
            \(account)
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
