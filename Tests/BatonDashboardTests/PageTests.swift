import Baton
import BatonDashboard
import BatonStore
import Foundation
import Testing

/// The server-rendered pages escape every stored value and load no script but the dashboard's own.
@Suite("dashboard pages")
struct PageTests {
    static let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&"

    static func run(name: String = hostile, status: RunStatus = .failed) throws -> RunRow {
        let json: JSON = [
            "id": "c7e6109a-a328-4847-b185-1824586d7156", "name": .string(name), "status": .string(status.rawValue),
            "submitted_at": "2026-11-23 19:35:40.1+00", "started_at": "2026-11-23 19:35:41+00", "finished_at": "2026-11-23 19:35:45+00",
            "error": .string(hostile), "node_count": 2, "nodes_done": 1, "input": [:],
        ]
        return try JSONDecoder().decode(RunRow.self, from: Data(json.serialized().utf8))
    }

    static func node(key: String = hostile) throws -> NodeRow {
        let json: JSON = [
            "key": .string(key), "procedure": .string(hostile), "status": "failed", "attempts": 2, "input": ["x": .string(hostile)],
            "output": nil, "error": .string(hostile), "worker": .string(hostile), "queued_at": nil, "started_at": nil,
            "finished_at": nil, "seconds": 1.5,
        ]
        return try JSONDecoder().decode(NodeRow.self, from: Data(json.serialized().utf8))
    }

    static func expectSafe(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!html.contains("<script>alert"), sourceLocation: sourceLocation)
        #expect(!html.contains("<img"), sourceLocation: sourceLocation)
        #expect(!html.contains("onerror=alert(2)>"), sourceLocation: sourceLocation)
        // The one script is the dashboard's file; nothing inline.
        #expect(html.components(separatedBy: "<script").count == 2, sourceLocation: sourceLocation)
        #expect(html.contains("<script src=\"/assets/dashboard.js\" defer></script>"), sourceLocation: sourceLocation)
        #expect(
            !html.contains("http://") && !html.contains("https://") || html.contains("xmlns=\"http://www.w3.org/2000/svg\""),
            sourceLocation: sourceLocation)
    }

    @Test func runsPageEscapesNamesAndErrors() throws {
        let page = RunsPage(
            query: RunsQuery(status: .failed, name: "\"><script>"), runs: [try Self.run()], total: 1, counts: [.failed: 1], now: 0)
        let html = page.render(layout: PageLayout(viewer: .anonymous))
        Self.expectSafe(html)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;"))
        #expect(html.contains("value=\"&quot;&gt;&lt;script&gt;\""))
        #expect(html.contains("href=\"/runs/c7e6109a-a328-4847-b185-1824586d7156\""))
        #expect(html.contains("data-operate=\"false\"") && html.contains("read-only") && html.contains("href=\"/login\""))
        #expect(!html.contains("id=\"sign-out\"") && !html.contains("href=\"/audit\""))
    }

    @Test func runPageSaysWhatNodesWaitForAndWhenTheNextTokenIsDue() throws {
        var page = RunPage(run: try Self.run(status: .running), counts: [.waiting: 12], svg: "<svg></svg>", nodes: [], now: 0)
        #expect(!page.render(layout: PageLayout(viewer: .anonymous)).contains("id=\"rate-waits\""), "no card when none waits")
        page.rateWaits = [
            RateWait(
                key: Self.hostile, limit: 5, perSeconds: 1, used: 5, nodes: (0..<12).map { "n\($0)" }, nextTokenAt: 1_795_000_000.25)
        ]
        let html = page.render(layout: PageLayout(viewer: .anonymous))
        Self.expectSafe(html)
        #expect(html.contains("id=\"rate-waits\""))
        #expect(html.contains("5 per 1s") && html.contains("5 of 5"))
        #expect(html.contains("11:06:40.250Z"), "the next token's time, UTC")
        #expect(html.contains("href=\"#node=n9\"") && !html.contains("href=\"#node=n10\"") && html.contains("and 2 more"))
    }

    @Test func runPageEscapesAndShowsAdminButtonsOnlyWithTheOperateScope() throws {
        let page = RunPage(
            run: try Self.run(), counts: [.failed: 1, .succeeded: 1], svg: "<svg class=\"baton-graph\"></svg>", nodes: [try Self.node()], now: 0)
        let readOnly = page.render(layout: PageLayout(viewer: .anonymous))
        Self.expectSafe(readOnly)
        #expect(!readOnly.contains("data-action="))
        #expect(readOnly.contains("data-run=\"c7e6109a-a328-4847-b185-1824586d7156\""))
        #expect(readOnly.contains("<tr class=\"node-row\" data-node=\"&lt;script&gt;"))
        let reader = page.render(layout: PageLayout(viewer: Viewer(name: "viewer", scopes: [.read, .submit], hasSession: true)))
        #expect(!reader.contains("data-action=") && reader.contains("data-operate=\"false\""), "a token without operate sees no buttons")
        #expect(reader.contains("id=\"sign-out\"") && reader.contains(">viewer<"))
        let admin = page.render(layout: PageLayout(viewer: Viewer(name: "<ops>", scopes: [.read, .operate], hasSession: true)))
        Self.expectSafe(admin)
        #expect(admin.contains("data-operate=\"true\""))
        #expect(admin.contains("data-action=\"retry\">Retry run"))
        #expect(admin.contains("data-action=\"cancel\" hidden>"))  // a failed run cannot be cancelled
        #expect(admin.contains("&lt;ops&gt;") && admin.contains("action=\"/logout\""))
        #expect(!admin.contains("href=\"/audit\""), "the audit page is for admin tokens")
        #expect(page.render(layout: PageLayout(viewer: Viewer(name: "root", scopes: [.admin]))).contains("data-action=\"retry\">Retry run"))
    }

    @Test func loginPageHasTheFormAndEscapesNext() {
        let html = LoginPage(next: "/runs/\"><script>", problem: "the token is unknown, expired or revoked").render()
        Self.expectSafe(html)
        #expect(html.contains("<form method=\"post\" action=\"/login\""))
        #expect(html.contains("name=\"token\" type=\"password\""))
        #expect(html.contains("value=\"/runs/&quot;&gt;&lt;script&gt;\""))
        #expect(html.contains("id=\"login-error\" role=\"alert\">the token is unknown, expired or revoked"))
        #expect(!LoginPage(next: "/").render().contains("login-error"))
    }

    @Test func workersPageEscapes() throws {
        let json: JSON = [
            "id": .string(Self.hostile), "host": .string(Self.hostile), "pid": 7, "pools": [.string(Self.hostile)],
            "procedures": [.string(Self.hostile)], "slots": 4, "started_at": "2026-11-23 19:35:40+00", "last_seen_at": "x",
            "seconds_since_seen": 0.5,
        ]
        let worker = try JSONDecoder().decode(WorkerRow.self, from: Data(json.serialized().utf8))
        let coordinator = CoordinatorRow(
            id: Self.hostile, host: Self.hostile, pid: 9, startedAt: "x", secondsSinceSeen: 1, runs: 3, nodesPerSecond: 12.4,
            partitions: [.init(partition: 0, epoch: 2), .init(partition: 1, epoch: 5), .init(partition: 2, epoch: 5), .init(partition: 7, epoch: 3)])
        let html = WorkersPage(workers: [worker], coordinators: [coordinator]).render(layout: PageLayout(viewer: .anonymous))
        Self.expectSafe(html)
        #expect(html.contains("1 live worker · 4 slots"))
        #expect(html.contains("1 live coordinator · 4 partitions held"))
        #expect(html.contains("<td class=\"mono\">4: 0-2,7</td><td>2-5</td>"))
        let none = WorkersPage(workers: []).render(layout: PageLayout(viewer: .anonymous))
        #expect(none.contains("No coordinator is running"))
    }

    @Test func htmlEscaping() {
        #expect(HTML.escape("<a href='x'>\"&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;")
        #expect(HTML.escape("plain ünïcode") == "plain ünïcode")
    }
}
