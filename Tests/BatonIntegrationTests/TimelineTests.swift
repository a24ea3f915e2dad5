import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// A run's timeline on the real services: `baton show --timeline` (drawn and `--json`) and the
    /// dashboard's canvas in headless Chromium, for a real run with a retry, a delay and a mutex wait,
    /// and for a 10,000-node run.
    @Suite("run timeline", .serialized)
    @MainActor
    struct TimelineTests {
        static let graph: JSON = [
            "name": "timeline",
            "nodes": [
                "flaky": [
                    "procedure": "baton.fail", "input": ["message": "busy", "succeed_on_attempt": 2],
                    "retry": ["attempts": 3, "wait": ["constant": "1s"]],
                ],
                "pause": ["procedure": "baton.delay", "input": ["seconds": 1]],
                "first": ["procedure": "baton.sleep", "input": ["seconds": 1], "mutex": ["timeline-db"]],
                "second": ["procedure": "baton.sleep", "input": ["seconds": 1], "mutex": ["timeline-db"]],
                "report": ["procedure": "baton.echo", "input": ["v": 1], "after": ["flaky", "pause", "first", "second"]],
            ],
        ]

        /// Where screenshots of this suite go (the test's temp dir), with a copy in .data/screenshots.
        static let screenshots = FileManager.default.temporaryDirectory.appendingPathComponent("baton-timeline-screenshots")

        @Test func showTimelineDrawsAndListsARealRunAndTheDashboardDrawsItsBars() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try TestCluster.submit(Self.graph)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")

            // --json: the intervals, in milliseconds from the first event.
            let json = try TestCluster.cli(["show", String(runID.prefix(8)), "--timeline", "--json"])
            #expect(json.status == 0, "\(json.stderr)")
            let t = try JSONParser.parse(json.stdout)
            #expect(t["run"]?.stringValue == runID && t["status"] == "succeeded")
            let nodes = Dictionary(uniqueKeysWithValues: (t["nodes"]?.arrayValue ?? []).map { ($0["key"]?.stringValue ?? "", $0) })
            #expect(Set(nodes.keys) == ["flaky", "pause", "first", "second", "report"])
            let flaky = try #require(nodes["flaky"])
            #expect(flaky["attempts"]?.arrayValue?.map { $0["outcome"] } == ["failed", "succeeded"], "\(flaky)")
            let retry = try #require(flaky["waits"]?.arrayValue?.first)
            #expect(retry["reason"] == "retry" && (retry["to"]?.intValue ?? 0) - (retry["from"]?.intValue ?? 0) >= 900, "\(retry)")
            let pause = try #require(nodes["pause"]?["waits"]?.arrayValue?.first)
            #expect(pause["reason"] == "delay" && (pause["to"]?.intValue ?? 0) - (pause["from"]?.intValue ?? 0) >= 900, "\(pause)")
            #expect(nodes["pause"]?["outcome"] == "succeeded" && nodes["pause"]?["attempts"] == [])
            // One of the two mutex holders waited for the other, about the other's second.
            let waited = ["first", "second"].compactMap { nodes[$0]?["waits"]?.arrayValue?.first { $0["reason"] == "admission" } }
                .map { ($0["to"]?.intValue ?? 0) - ($0["from"]?.intValue ?? 0) }
            #expect(waited.contains { $0 >= 800 }, "\(waited)")
            for node in nodes.values {
                for attempt in node["attempts"]?.arrayValue ?? [] {
                    let times = ["queued", "started", "finished"].compactMap { attempt[$0]?.intValue }
                    #expect(times.count == 3 && times == times.sorted() && times.allSatisfy { $0 >= 0 }, "\(node)")
                }
            }
            let duration = try #require(t["duration_ms"]?.intValue)
            #expect(duration >= 2000 && duration < 60_000)

            // Drawn for a terminal 72 characters wide: an axis, a row per node by first activity, a legend.
            let drawn = try TestCluster.cli(["show", runID, "--timeline", "--width", "72"])
            #expect(drawn.status == 0 && drawn.stderr.isEmpty, "\(drawn.stderr)")
            let lines = drawn.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines[0].hasPrefix("run \(runID)  timeline  succeeded  "), "\(lines[0])")
            #expect(lines.dropFirst().allSatisfy { $0.count <= 72 }, "the header line aside: \(drawn.stdout)")
            #expect(!drawn.stdout.contains("\u{1B}["), "no color when not a terminal")
            #expect(lines[2].trimmingCharacters(in: .whitespaces).hasPrefix("0 "), "\(lines[2])")
            let row = { (key: String) in lines.first { $0.hasPrefix(key + " ") } ?? "" }
            #expect(row("flaky").contains("x") && row("flaky").contains(".") && row("flaky").contains("#"), "\(drawn.stdout)")
            #expect(row("flaky").hasSuffix("×2"), "\(row("flaky"))")
            #expect(row("pause").contains("....") && !row("pause").contains("-"), "\(row("pause"))")
            #expect(row("first").contains(".") || row("second").contains("."), "\(drawn.stdout)")
            #expect(row("report").contains("#"))
            #expect(lines.last { !$0.isEmpty }?.hasPrefix(". waiting  - queued") == true, "\(drawn.stdout)")
            let order = lines.compactMap { line in ["flaky", "pause", "first", "second", "report"].first { line.hasPrefix($0 + " ") } }
            #expect(order.last == "report" && order.count == 5, "nodes by first activity: \(order)")
            // COLUMNS sets the width when --width does not.
            let narrow = try TestCluster.cli(["show", runID, "--timeline"], environment: ["COLUMNS": "50"])
            #expect(narrow.status == 0 && narrow.stdout.components(separatedBy: "\n").dropFirst().allSatisfy { $0.count <= 50 }, "\(narrow.stdout)")

            // On a terminal (a pseudo-terminal from script(1)): the window's width, and colors unless NO_COLOR.
            let environment = ["BATON_DATABASE_URL": TestCluster.databaseURL, "TERM": "xterm", "NO_COLOR": ""]
            let command = "unset COLUMNS; stty cols 66 rows 40; \(TestCluster.batonPath) show \(runID) --timeline"
            let tty = try ChildProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            let ttyLines = tty.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
            #expect(tty.status == 0 && tty.stdout.contains("\u{1B}[32m#") && tty.stdout.contains("\u{1B}[31mx"), "\(tty)")
            let plainWidth = ttyLines.dropFirst().map { $0.replacing(#/\u{1B}\[[0-9]+m/#, with: "").count }
            #expect(plainWidth.max() ?? 0 <= 66 && plainWidth.max() ?? 0 >= 60, "the window's 66 columns: \(ttyLines)")
            var noColor = environment
            noColor["NO_COLOR"] = "1"
            let plain = try ChildProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: noColor)
            #expect(plain.status == 0 && plain.stdout.contains("#") && !plain.stdout.contains("\u{1B}["), "\(plain)")

            // Bad input: one line, exit 2, nothing printed.
            for (arguments, message) in [
                (["--timeline", "--width", "12"], "--width: 12 is not from 40 to 10000 characters"),
                (["--width", "80"], "--width needs --timeline"), (["--all"], "--all needs --timeline"),
                (["--timeline", "--width", "wide"], "The value 'wide' is invalid for '--width <width>'"),
            ] {
                let bad = try TestCluster.cli(["show", runID] + arguments)
                #expect(bad.status == 2 && bad.stdout.isEmpty && bad.stderr.hasPrefix("baton: \(message)"), "\(arguments): \(bad)")
                #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
            }

            // The dashboard: the run page's canvas draws every node's bars, with a tooltip per bar.
            let port = try DashboardTests.startDashboard(cluster)
            let api = try HTTPExchange.request(port: port, "/api/runs/\(runID)/timeline.json")
            #expect(api.status == 200 && api.headers["content-type"] == "application/json; charset=utf-8")
            #expect(try api.json()["nodes"] == t["nodes"], "the page and the CLI give the same intervals")
            let missing = try HTTPExchange.request(port: port, "/api/runs/00000000-0000-4000-8000-000000000000/timeline.json")
            #expect(missing.status == 404 && missing.body.contains("no run with id"))
            #expect(try HTTPExchange.request(port: port, "/api/runs/nope/timeline.json").status == 400)

            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)")
            defer { browser.close() }
            try browser.setViewport(width: 1280, height: 900)
            // A draw can come before the timeline is loaded (a resize draws the empty canvas): wait for a loaded one.
            try browser.waitFor(
                20, "the timeline to load and draw", "window.batonTimeline && window.batonTimeline.loaded && window.batonTimeline.draws"
            ) { ($0.intValue ?? 0) > 0 }
            #expect(try browser.evaluate("window.batonTimeline.nodes") == 5)
            // The first draw may come before the viewport's size is applied: wait for the one that draws every row.
            try browser.waitFor(10, "all 5 rows drawn", "window.batonTimeline.rowsDrawn") { $0.intValue == 5 }
            #expect(try browser.evaluate("window.batonTimeline.rowsDrawn") == 5)
            #expect(
                try browser.evaluate("document.getElementById('timeline-summary').textContent")
                    .stringValue?.hasPrefix("5 nodes · ") == true)
            let failedAttempt = try #require(flaky["attempts"]?.arrayValue?.first)
            let middle = ((failedAttempt["started"]?.intValue ?? 0) + (failedAttempt["finished"]?.intValue ?? 0)) / 2
            // The failed attempt is a red bar, and hovering it says so.
            let hover = { (key: String, ms: Int) in
                """
                (() => { const p = window.batonTimeline.locate('\(key)', \(ms)); const c = document.getElementById('timeline-canvas');
                  const r = c.getBoundingClientRect(); const d = window.devicePixelRatio || 1;
                  const px = c.getContext('2d').getImageData(Math.round((p.x - r.left) * d), Math.round((p.y - r.top) * d), 1, 1).data;
                  c.dispatchEvent(new MouseEvent('mousemove', { clientX: p.x, clientY: p.y, bubbles: true }));
                  const tip = document.getElementById('timeline-tip');
                  return [Array.from(px).slice(0, 3), tip.hidden ? '' : tip.textContent]; })()
                """
            }
            let failed = try browser.evaluate(hover("flaky", middle)).arrayValue ?? []
            #expect(failed.first == [220, 38, 38], "the failed attempt's red: \(failed)")
            #expect(failed.last?.stringValue?.contains("attempt 1 · failed") == true, "\(failed)")
            let waitMiddle = ((retry["from"]?.intValue ?? 0) + (retry["to"]?.intValue ?? 0)) / 2
            let backOff = try browser.evaluate(hover("flaky", waitMiddle)).arrayValue ?? []
            #expect(backOff.first == [245, 158, 11], "the retry wait's amber: \(backOff)")
            #expect(backOff.last?.stringValue?.contains("waiting: retry back-off (after attempt 1)") == true, "\(backOff)")
            let delay = try browser.evaluate(hover("pause", ((pause["from"]?.intValue ?? 0) + (pause["to"]?.intValue ?? 0)) / 2)).arrayValue ?? []
            #expect(delay.first == [100, 116, 139] && delay.last?.stringValue?.contains("waiting: delay") == true, "\(delay)")
            // Zoom in with the button: the window narrows; Fit brings back the whole run.
            let span = try browser.evaluate("window.batonTimeline.window().span").numberValue ?? 0
            _ = try browser.evaluate("document.querySelector('.timeline-button[data-zoom=in]').click(), true")
            try browser.waitFor(5, "the zoom", "window.batonTimeline.window().span") { ($0.numberValue ?? 0) < span * 0.6 }
            _ = try browser.evaluate("document.querySelector('.timeline-button[data-zoom=fit]').click(), true")
            try browser.waitFor(5, "the fit", "window.batonTimeline.window().span") { abs(($0.numberValue ?? 0) - span) < 1 }
            // A click on a row opens the node in the panel.
            _ = try browser.evaluate(
                """
                (() => { const p = window.batonTimeline.locate('pause', 0); const o = { clientX: p.x, clientY: p.y, bubbles: true, button: 0 };
                  const c = document.getElementById('timeline-canvas'); c.dispatchEvent(new MouseEvent('mousedown', o));
                  c.dispatchEvent(new MouseEvent('mouseup', o)); return true; })()
                """)
            try browser.waitFor(10, "pause's panel", "document.getElementById('panel-body').textContent") {
                ($0.stringValue ?? "").contains("baton.delay")
            }
            try Self.screenshot(browser, name: "timeline-run")
            try Chromium.screenshot("http://127.0.0.1:\(port)/runs/\(runID)", name: "timeline-run-page", size: "1400,1400", budget: 8000)
        }

        @Test func theTimelineFollowsARunThatGoesOn() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try DashboardTests.startDashboard(cluster)
            let runID = try TestCluster.submit([
                "name": "timeline-live",
                "nodes": [
                    "nap": ["procedure": "baton.sleep", "input": ["seconds": 4]],
                    "then": ["procedure": "baton.echo", "input": ["v": 1], "after": ["nap"]],
                ],
            ])
            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)")
            defer { browser.close() }
            // While it runs: nap's attempt is open (drawn running, to now), and the summary says so far.
            let open = try browser.waitFor(
                20, "nap running on the timeline",
                """
                (() => { const s = window.batonTimeline; if (!s || !s.loaded) return null;
                  return [s.status, document.getElementById('timeline-summary').textContent]; })()
                """
            ) { $0.arrayValue?.first == "running" }
            #expect(open.arrayValue?.last?.stringValue?.hasSuffix(" so far") == true, "\(open)")
            let tip = try browser.waitFor(
                10, "nap's open attempt under the pointer",
                """
                (() => { const w = window.batonTimeline.window(); const p = window.batonTimeline.locate('nap', w.from + w.span * 0.5);
                  document.getElementById('timeline-canvas').dispatchEvent(new MouseEvent('mousemove', { clientX: p.x, clientY: p.y, bubbles: true }));
                  return document.getElementById('timeline-tip').textContent; })()
                """
            ) { $0.stringValue?.contains("attempt 1 · running") == true }
            #expect(tip.stringValue?.hasPrefix("nap · running") == true, "\(tip)")
            // Then, in the same page, the run's end.
            try browser.waitFor(30, "the timeline of the ended run", "window.batonTimeline.status") { $0 == "succeeded" }
            #expect(try browser.evaluate("document.getElementById('timeline-summary').textContent").stringValue?.hasSuffix("so far") == false)
            #expect(try browser.evaluate("window.batonTimeline.nodes") == 2)
        }

        @Test func aTenThousandNodeRunDrawsOnlyWhatIsInViewAndStaysResponsive() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let count = 10_000
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<count { nodes.append(("n\(i)", ["procedure": "baton.echo", "input": ["i": .int(Int64(i))]])) }
            let runID = try TestCluster.submit(["name": "timeline-10k", "nodes": .object(JSONObject(nodes))])
            // No coordinator: the history is written here, as a cluster would have written it over a
            // minute: every node queued, started and ended; every 7th retried once after a back-off
            // and then failed; every 11th waited for a mutex first.
            let sql = try TestCluster.sql()
            defer { sql.close() }
            try sql.transaction { c in
                let base = "(select submitted_at from baton.runs where id = $1::uuid)"
                func insert(_ kind: String, _ at: String, _ detail: String, where condition: String = "true") throws {
                    try c.execute(
                        """
                        insert into baton.events (run_id, run_submitted_at, node_key, kind, at, detail)
                        select n.run_id, n.run_submitted_at, n.key, '\(kind)', \(base) + make_interval(secs => \(at)), \(detail)
                        from baton.nodes n where n.run_id = $1::uuid and \(condition) order by n.position
                        """, [runID])
                }
                let queued = "n.position * 0.005"
                let started = "\(queued) + 0.2 + (n.position % 13) * 0.1"
                let retried = "n.position % 7 = 0"
                try insert("awaiting_admission", "\(queued) - 1.5", "'{\"attempt\": 0}'", where: "n.position % 11 = 0")
                try insert("admitted", "\(queued)", "'{\"attempt\": 1}'", where: "n.position % 11 = 0")
                try insert("queued", queued, "'{\"attempt\": 1}'")
                try insert("started", started, "'{\"attempt\": 1, \"worker\": \"w1\"}'")
                try insert(
                    "retrying", "\(started) + 0.5",
                    "jsonb_build_object('attempt', 1, 'error', 'busy', 'due_at', \(base) + make_interval(secs => \(started) + 1.5))",
                    where: retried)
                try insert("queued", "\(started) + 1.5", "'{\"attempt\": 2}'", where: retried)
                try insert("started", "\(started) + 1.6", "'{\"attempt\": 2, \"worker\": \"w1\"}'", where: retried)
                try insert("failed", "\(started) + 2.5", "'{\"attempt\": 2, \"error\": \"busy\"}'", where: retried)
                try insert(
                    "succeeded", "\(started) + 1 + (n.position % 17) * 0.2", "'{\"attempt\": 1, \"worker\": \"w1\"}'", where: "not (\(retried))")
                try c.execute(
                    """
                    update baton.nodes set status = case when position % 7 = 0 then 'failed' else 'succeeded' end,
                        attempts = case when position % 7 = 0 then 2 else 1 end where run_id = $1::uuid
                    """, [runID])
                try c.execute(
                    "update baton.runs set status = 'failed', started_at = submitted_at, finished_at = submitted_at + interval '1 minute' where id = $1::uuid",
                    [runID])
            }

            let shown = try TestCluster.cli(["show", runID, "--timeline", "--width", "100"])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.contains("… 9950 more nodes (--all draws every node)"), "\(shown.stdout.suffix(600))")
            let all = try TestCluster.cli(["show", runID, "--timeline", "--all", "--width", "100"])
            #expect(all.stdout.split(separator: "\n").count == count + 4, "header, axis (2), nodes, legend")

            let port = try DashboardTests.startDashboard(cluster)
            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)")
            defer { browser.close() }
            try browser.setViewport(width: 1280, height: 900)
            try browser.waitFor(60, "the timeline of 10,000 nodes to draw", "window.batonTimeline && window.batonTimeline.draws") {
                ($0.intValue ?? 0) > 0
            }
            #expect(try browser.evaluate("window.batonTimeline.nodes") == .int(Int64(count)))
            let rows = try browser.evaluate("window.batonTimeline.rowsDrawn").intValue ?? 0
            #expect(rows > 10 && rows < 40, "only the rows in view are drawn: \(rows)")
            // Events as a person makes them: wheel zooms (Ctrl), scrolls and pans, drags, keys; each
            // handled and drawn within a bound, in the page, measured with performance.now().
            let measured = try browser.evaluate(
                """
                new Promise(done => {
                  const s = window.batonTimeline, view = document.getElementById('timeline-view');
                  const c = document.getElementById('timeline-canvas'), r = c.getBoundingClientRect();
                  const at = { clientX: r.left + r.width * 0.6, clientY: r.top + 100, bubbles: true, cancelable: true };
                  s.maxDrawMs = 0; s.maxLatencyMs = 0; s.handled = 0;
                  let i = 0;
                  const steps = [
                    () => view.dispatchEvent(new WheelEvent('wheel', Object.assign({ deltaY: -240, ctrlKey: true }, at))),
                    () => view.dispatchEvent(new WheelEvent('wheel', Object.assign({ deltaY: 400 }, at))),
                    () => view.dispatchEvent(new WheelEvent('wheel', Object.assign({ deltaY: 120, shiftKey: true }, at))),
                    () => view.dispatchEvent(new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true })),
                    () => view.dispatchEvent(new WheelEvent('wheel', Object.assign({ deltaY: 240, ctrlKey: true }, at))),
                  ];
                  const drag = () => {
                    view.dispatchEvent(new MouseEvent('mousedown', Object.assign({ button: 0 }, at)));
                    window.dispatchEvent(new MouseEvent('mousemove', { clientX: at.clientX - 200, clientY: at.clientY - 300, bubbles: true }));
                    window.dispatchEvent(new MouseEvent('mouseup', { clientX: at.clientX - 200, clientY: at.clientY - 300, bubbles: true }));
                  };
                  function next() {
                    if (i < 60) { if (i === 30) drag(); else steps[i % steps.length](); i++; requestAnimationFrame(next); return; }
                    requestAnimationFrame(() => requestAnimationFrame(() => done([s.handled, s.maxDrawMs, s.maxLatencyMs, s.window().top, s.rowsDrawn, s.draws])));
                  }
                  next();
                })
                """)
            print(
                "10,000-node timeline: fetched in \(try browser.evaluate("window.batonTimeline.fetchMs")) ms; [events handled, slowest draw ms, slowest event-to-draw ms, rows scrolled px, rows drawn, draws] = \(measured)"
            )
            let values = measured.arrayValue ?? []
            #expect((values.first?.intValue ?? 0) >= 60, "every event handled: \(measured)")
            #expect((values[safe: 1]?.numberValue ?? 999) < 50, "a draw takes under 50 ms: \(measured)")
            #expect((values[safe: 2]?.numberValue ?? 999) < 300, "an event is drawn within 300 ms, however loaded the machine: \(measured)")
            #expect((values[safe: 3]?.numberValue ?? 0) > 1000, "scrolled down the nodes: \(measured)")
            #expect((values[safe: 4]?.intValue ?? 0) < 40, "\(measured)")
            // Scrolled to the last node: it is drawn, with its tooltip.
            let last = try browser.evaluate(
                """
                (() => { const p = window.batonTimeline.locate('n9999', 50000); const c = document.getElementById('timeline-canvas');
                  c.dispatchEvent(new MouseEvent('mousemove', { clientX: p.x, clientY: p.y, bubbles: true }));
                  return document.getElementById('timeline-tip').textContent; })()
                """)
            #expect(last.stringValue?.hasPrefix("n9999 · succeeded") == true, "\(last)")
            _ = try browser.evaluate("document.querySelector('.timeline-button[data-zoom=fit]').click(), window.batonTimeline.locate('n0', 0), true")
            try Self.screenshot(browser, name: "timeline-10k")
        }

        /// A screenshot of the page's timeline card, into the test's temp dir and .data/screenshots.
        static func screenshot(_ browser: ChromiumSession, name: String) throws {
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            let path = screenshots.appendingPathComponent("\(name).png")
            try? FileManager.default.removeItem(at: path)
            // No tooltip or focus ring left from the tests in the picture.
            _ = try browser.evaluate(
                "document.getElementById('timeline-view').dispatchEvent(new MouseEvent('mouseleave')); document.activeElement.blur(); true")
            try browser.screenshot(of: "#timeline-card", to: path.path)
            let size = (try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int) ?? 0
            #expect(size > 10_000, "\(path.path) is \(size) bytes")
            let copy = Chromium.screenshotDirectory.appendingPathComponent("\(name).png")
            try? FileManager.default.removeItem(at: copy)
            try FileManager.default.copyItem(at: path, to: copy)
        }
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
