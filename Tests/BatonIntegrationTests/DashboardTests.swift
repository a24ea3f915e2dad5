import Baton
import BatonDashboard
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `baton dashboard` on the real services, used as a person would: pages in headless Chromium,
    /// the API over plain HTTP, signing in with a token, and the admin actions by its scopes.
    @Suite("baton dashboard", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct DashboardTests {
        static let hostileGraph: JSON = [
            "name": "dashboard <b>demo</b>",
            "nodes": [
                "evil": [
                    "procedure": "baton.echo",
                    "input": ["html": "<script>alert(1)</script>", "img": "<img src=x onerror=document.title='pwned'>"],
                ],
                "after": ["procedure": "baton.echo", "input": ["v": ["$from": "evil"]]],
                "items": ["procedure": "baton.echo", "input": ["list": [1, 2, 3]]],
                "each": ["map": ["over": ["$from": "items", "select": "/list"], "procedure": "baton.echo"]],
                "steps": ["procedure": "demo.steps", "input": ["steps": 2, "seconds": 0.05], "after": ["items"]],
            ],
        ]

        /// Starts the dashboard on a free port and returns the port, once it listens (with
        /// `--public-read` unless other arguments are given).
        static func startDashboard(_ cluster: TestCluster, _ arguments: [String] = ["--public-read"], name: String = "dashboard") throws -> Int {
            let port = HTTPProbe.freePort()
            try cluster.start(["dashboard", "--listen", "127.0.0.1:\(port)"] + arguments, name: name)
            try TestCluster.waitUntil(30, "the dashboard to listen") {
                cluster.log(name).contains("baton dashboard on http://127.0.0.1:\(port) (")
            }
            return port
        }

        /// Each drawn element's `data-node` → `data-status` in a serialized DOM.
        static func drawnStates(_ dom: String) throws -> [String: String] {
            let tag = try Regex(#"<g class="baton-(?:node|cluster)[^"]*"[^>]*>"#)
            let key = try Regex(#"data-node="([^"]*)""#)
            let status = try Regex(#"data-status="([^"]*)""#)
            var states: [String: String] = [:]
            for match in dom.matches(of: tag) {
                let text = String(dom[match.range])
                guard let k = text.firstMatch(of: key)?.output[1].substring, let s = text.firstMatch(of: status)?.output[1].substring else {
                    continue
                }
                states[String(k)] = String(s)
            }
            return states
        }

        @Test func pagesInHeadlessChromiumShowTheRunAndKeepHostileOutputAsText() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try TestCluster.submit(Self.hostileGraph)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")
            let stored = try TestCluster.nodes(store, runID)
            let port = try Self.startDashboard(cluster)
            let base = "http://127.0.0.1:\(port)"

            // The runs list: the run, its name as text.
            let runs = try Chromium.dumpDOM(base + "/")
            #expect(runs.contains("data-run=\"\(runID)\""), "\(runs.prefix(2000))")
            #expect(runs.contains("dashboard &lt;b&gt;demo&lt;/b&gt;"))
            #expect(!runs.contains("<b>demo</b>"))
            #expect(runs.contains("id=\"count-succeeded\""))
            try Chromium.screenshot(base + "/", name: "dashboard-runs")

            // The run: every node drawn with its state; the hostile output in the panel, as text only.
            let page = try Chromium.dumpDOM(base + "/runs/\(runID)#node=evil", budget: 8000)
            let drawn = try Self.drawnStates(page)
            #expect(Set(drawn.keys) == Set(stored.keys), "drawn \(drawn.keys.sorted()), stored \(stored.keys.sorted())")
            for (key, row) in stored { #expect(drawn[key] == row.status, "\(key)") }
            #expect(drawn["each/2"] == "succeeded" && drawn["evil"] == "succeeded")
            #expect(page.contains("<h2 class=\"mono\">evil</h2>"), "the node panel did not open: \(page.suffix(3000))")
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.contains("&lt;img src=x onerror=document.title='pwned'&gt;"))
            #expect(page.components(separatedBy: "<script").count == 2, "only the dashboard's own script element")
            #expect(!page.contains("<img"), "an injected element")
            #expect(!page.contains("pwned</title>"))
            #expect(page.contains("<title>dashboard &lt;b&gt;demo&lt;/b&gt; · Baton</title>"))
            try Chromium.screenshot(base + "/runs/\(runID)#node=evil", name: "dashboard-run", size: "1440,1100", budget: 8000)

            // A node's progress and logs come with its panel.
            let steps = try Chromium.dumpDOM(base + "/runs/\(runID)#node=steps", budget: 8000)
            #expect(steps.contains("<h2 class=\"mono\">steps</h2>"))
            #expect(steps.contains(">Progress</h3>") && steps.contains("100%"), "\(steps.suffix(3000))")

            // Workers: the live worker with its procedures.
            let workers = try store.liveWorkers()
            #expect(!workers.isEmpty)
            let workersPage = try Chromium.dumpDOM(base + "/workers")
            for worker in workers { #expect(workersPage.contains("data-worker=\"\(worker.id)\"")) }
            #expect(workersPage.contains(">baton.echo</span>"))
            // ... and the coordinator, with every partition (the script's refresh keeps it).
            for coordinator in try store.coordinators() { #expect(workersPage.contains("data-coordinator=\"\(coordinator.id)\"")) }
            #expect(workersPage.contains("1 live coordinator · 64 partitions held"), "\(workersPage.suffix(2000))")
            try Chromium.screenshot(base + "/workers", name: "dashboard-workers")
        }

        @Test func aRunPageFollowsTheRunLiveWithoutReloading() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try Self.startDashboard(cluster)
            let runID = try TestCluster.submit([
                "name": "live",
                "nodes": [
                    "gate": ["procedure": "baton.sleep", "input": ["seconds": 2.5]],
                    "work": ["procedure": "demo.steps", "input": ["steps": 5, "seconds": 0.6], "after": ["gate"]],
                ],
            ])
            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)#node=work")
            defer { browser.close() }
            let states = "Object.fromEntries([...document.querySelectorAll('g[data-node]')].map(g => [g.dataset.node, g.dataset.status]))"
            // First as the page loaded: work has not started.
            let first = try browser.waitFor(15, "the drawing", states) { $0["gate"] != nil }
            #expect(first["work"] == "pending", "\(first)")
            // Then, in the same page, work runs with its progress and log lines in the open panel ...
            try browser.waitFor(
                30, "work running in the drawing, with progress in its panel", "[\(states).work, document.getElementById('panel-body').textContent]"
            ) {
                $0.arrayValue?.first == "running" && ($0.arrayValue?.last?.stringValue ?? "").contains("Progress")
            }
            // ... and at the end every node is green, the run succeeded, and the panel has every log line.
            try browser.waitFor(30, "the run to end on the page", "[\(states), document.getElementById('run-status').textContent]") {
                $0.arrayValue?.first == ["gate": "succeeded", "work": "succeeded"] && $0.arrayValue?.last == "succeeded"
            }
            try browser.waitFor(10, "the panel's last log line", "document.getElementById('panel-body').textContent") {
                ($0.stringValue ?? "").contains("step 5 of 5 done") && ($0.stringValue ?? "").contains("100%")
            }
            #expect(try browser.evaluate("performance.getEntriesByType('navigation').length") == 1)
            #expect(try browser.evaluate("document.getElementById('offline') === null || document.getElementById('offline').hidden") == true)
        }

        /// Errors a procedure throws keep their type (`nodes.error_type`): failed nodes group by procedure
        /// and error type in SQL, in `baton show --json`, and in the failures card of both pages.
        @Test func failuresGroupByProcedureAndErrorType() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.start(["--concurrency", "4"], name: "test-worker", executable: TestWorkerRestarter.executablePath)
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a worker serving test.throw") {
                try store.liveWorkers().contains { $0.procedures.contains("test.throw") }
            }
            let name = "failures-\(UUID().uuidString.prefix(8).lowercased())"
            func thrower(_ error: String, _ sku: String) -> JSON {
                ["procedure": "test.throw", "input": ["error": .string(error), "sku": .string(sku)], "on_failure": "ignore"]
            }
            let first = try TestCluster.submit([
                "name": .string(name),
                "nodes": [
                    "a": thrower("out-of-stock", "A-1"), "b": thrower("out-of-stock", "B-2"), "c": thrower("lookup", "C-3"),
                    "d": ["procedure": "baton.fail", "input": ["message": "declined", "permanent": true], "on_failure": "ignore"],
                ],
            ])
            let second = try TestCluster.submit([
                "name": .string(name), "nodes": ["e": ["procedure": "test.throw", "input": ["error": "out-of-stock", "sku": "E-5"]]],
            ])
            #expect(try TestCluster.waitForRun(first, store: store) == "succeeded")
            #expect(try TestCluster.waitForRun(second, store: store) == "failed")

            let nodes = try TestCluster.nodes(store, first)
            #expect(nodes["a"]?.errorType == "InventoryError" && nodes["b"]?.errorType == "InventoryError")
            #expect(nodes["a"]?.error == "test.throw threw InventoryError: InventoryError.outOfStock(sku: \"A-1\")", "\(nodes["a"]?.error ?? "-")")
            #expect(nodes["c"]?.errorType == "LookupError" && nodes["c"]?.error == "test.throw threw LookupError: no item 'C-3'")
            #expect(nodes["d"]?.status == "failed" && nodes["d"]?.errorType == nil, "a ProcedureFailure has no type to group by")
            let groups = try store.failureGroups(ofRuns: [first, second])
            #expect(
                groups.map { "\($0.procedure) \($0.errorType ?? "-") \($0.nodes) \($0.runs)" } == [
                    "test.throw InventoryError 3 2", "baton.fail - 1 1", "test.throw LookupError 1 1",
                ], "\(groups)")
            #expect(["a", "b", "e"].contains(groups.first?.latestNode ?? ""))

            // The same grouping in plain SQL, on the column.
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let counted = try sql.query(
                """
                select procedure, coalesce(error_type, '-') as type, count(*) as n from baton.nodes
                where run_id in ($1::uuid, $2::uuid) and status = 'failed' group by 1, 2 order by 3 desc, 1, 2
                """, [first, second])
            #expect(
                (0..<counted.rowCount).map { "\(counted[row: $0, column: "type"]!) \(counted.int($0, "n")!)" } == [
                    "InventoryError 3", "- 1", "LookupError 1",
                ])

            let show = try TestCluster.cli(["show", first, "--json"])
            #expect(show.status == 0, "\(show.stderr)")
            let shown = try JSONParser.parse(show.stdout)["nodes"]?.arrayValue ?? []
            #expect(shown.first { $0["key"] == "c" }?["error_type"] == "LookupError", "\(show.stdout.prefix(2000))")

            // The runs page groups the failures of the runs it lists; the run page those of the run,
            // and a group's node opens in the panel with its error type.
            let port = try Self.startDashboard(cluster)
            let base = "http://127.0.0.1:\(port)"
            let runs = try Chromium.dumpDOM(base + "/?name=" + name)
            #expect(runs.contains("id=\"failures\"") && runs.contains("Failures in the runs on this page"), "\(runs.suffix(3000))")
            #expect(
                runs.contains(
                    #"data-procedure="test.throw" data-error-type="InventoryError"><td class="mono">test.throw</td><td><span class="mono">InventoryError</span></td><td>3</td><td>2</td>"#
                ),
                "\(runs.suffix(3000))")
            let browser = try ChromiumSession(url: base + "/runs/\(first)")
            defer { browser.close() }
            let card = try browser.waitFor(15, "the failures card", "document.getElementById('failures-body')?.textContent ?? ''") {
                ($0.stringValue ?? "").contains("LookupError")
            }
            #expect(card.stringValue?.contains("baton.fail") == true)
            _ = try browser.evaluate("document.querySelector('#failures-body a[data-node=\"c\"]').click(), true")
            let panel = try browser.waitFor(15, "node c's panel", "document.getElementById('panel-body').textContent") {
                ($0.stringValue ?? "").contains("Error · LookupError")
            }
            #expect(panel.stringValue?.contains("no item 'C-3'") == true)
            #expect(try browser.evaluate("location.hash") == "#node=c")
        }

        @Test func theStorePoolReconnectsAfterItsConnectionsAreKilled() async throws {
            _ = TestCluster()
            let pool = StorePool(url: TestCluster.databaseURL, size: 2)
            defer { pool.close() }
            #expect(try await pool.run { try $0.runCounts() }.values.allSatisfy { $0 >= 0 })
            #expect(try await pool.run { try $0.runCounts() }.values.allSatisfy { $0 >= 0 })
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let killed = try sql.query(
                """
                select count(pg_terminate_backend(pid)) as n from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
                """
            ).int(0, "n")
            #expect((killed ?? 0) >= 1)
            for _ in 0..<4 { _ = try await pool.run { try $0.runCounts() } }  // each thread's lost connection opened again

            let unreachable = StorePool(url: "postgresql://nobody@127.0.0.1:1/none", size: 1)
            defer { unreachable.close() }
            await #expect {
                try await unreachable.run { try $0.runCounts() }
            } throws: { error in
                (error as? DashboardError)?.status == 503
                    && (error as? DashboardError)?.message.hasPrefix("the database cannot be reached: ") == true
            }
        }

        /// PostgreSQL's port accepts connections and never answers (a socket of the test's own): every
        /// request to the dashboard's pool gets its 503 within 5 s, again and again, instead of hanging on
        /// a connection attempt or on requests queued behind one.
        @Test func theStorePoolAnswersWithin5SecondsWhileTheDatabaseNeverAnswers() async throws {
            let (fd, port) = HTTPProbe.occupiedPort()
            defer { close(fd) }
            try #require(fd >= 0 && listen(fd, 64) == 0)
            let pool = StorePool(url: "postgresql://postgres@127.0.0.1:\(port)/baton?connect_timeout=30", size: 1)
            defer { pool.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let started = ContinuousClock.now
                        await #expect {
                            try await pool.run { try $0.runCounts() }
                        } throws: { error in
                            (error as? DashboardError)?.status == 503
                        }
                        let took = ContinuousClock.now - started
                        #expect(took < .seconds(5), "answered after \(took)")
                    }
                }
                try await group.waitForAll()
            }
        }

        @Test func theAPIAnswersJSONAndRefusesBadParameters() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let runID = try TestCluster.submit(Self.hostileGraph)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")
            let port = try Self.startDashboard(cluster)
            func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPExchange.Reply {
                try HTTPExchange.request(port: port, path, headers: headers)
            }

            let runs = try get("/api/runs?name=DASHBOARD+%3Cb%3E&status=succeeded")
            #expect(runs.status == 200 && runs.headers["content-type"] == "application/json; charset=utf-8")
            #expect(runs.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            #expect(runs.headers["x-content-type-options"] == "nosniff" && runs.headers["x-frame-options"] == "DENY")
            let list = try runs.json()
            #expect(list["runs"]?.arrayValue?.first?["id"]?.stringValue == runID)
            #expect(list["runs"]?.arrayValue?.first?["name"] == "dashboard <b>demo</b>")
            #expect(list["page"] == 1 && list["per_page"] == 50 && (list["total"]?.intValue ?? 0) >= 1)
            #expect(list["counts"]?["succeeded"]?.intValue ?? 0 >= 1 && list["counts"]?["cancelled"] != nil)
            #expect(try get("/api/runs?name=no-such-run-name").json()["runs"] == [])

            let run = try get("/api/runs/\(runID)").json()
            #expect(run["run"]?["status"] == "succeeded" && run["run"]?["node_count"] == 8)
            #expect(run["node_counts"]?["succeeded"] == 8 && run["actions"] == [])
            let nodes = try get("/api/runs/\(runID)/nodes").json()
            #expect(nodes["total"] == 8 && nodes["nodes"]?.arrayValue?.count == 8)
            #expect(try get("/api/runs/\(runID)/nodes?limit=2&offset=1").json()["nodes"]?.arrayValue?.count == 2)
            let evil = try get("/api/runs/\(runID)/node?key=evil").json()
            #expect(evil["node"]?["output"]?["html"] == "<script>alert(1)</script>")
            #expect(evil["events"]?.arrayValue?.map { $0["kind"] } == ["queued", "started", "succeeded"])
            let child = try get("/api/runs/\(runID)/node?key=each%2F1").json()
            #expect(child["node"]?["key"] == "each/1")
            let steps = try get("/api/runs/\(runID)/node?key=steps").json()
            #expect(steps["progress"]?["fraction"]?.numberValue == 1)
            let events = try get("/api/runs/\(runID)/events?after=0&limit=3").json()
            #expect(events["events"]?.arrayValue?.count == 3)
            let svg = try get("/api/runs/\(runID)/graph.svg")
            #expect(svg.status == 200 && svg.headers["content-type"] == "image/svg+xml; charset=utf-8" && svg.body.contains("data-node=\"each/0\""))
            let workers = try get("/api/workers").json()
            #expect(workers["workers"]?.arrayValue?.first?["procedures"]?.arrayValue?.contains("baton.echo") == true)
            #expect(workers["coordinators"]?.arrayValue?.first?["partitions"]?.arrayValue?.count == 64)
            #expect(try get("/assets/dashboard.js").headers["content-type"] == "text/javascript; charset=utf-8")

            // Bad parameters: 400 or 404 with a JSON error naming what is wrong.
            let missing = "00000000-0000-4000-8000-000000000000"
            for (path, status, message) in [
                ("/api/runs/not-a-run", 400, "'not-a-run' is not a run id (a UUID)"),
                ("/api/runs/\(missing)", 404, "no run with id \(missing)"),
                ("/api/runs/\(missing)/nodes", 404, "no run with id \(missing)"),
                ("/api/runs/\(missing)/graph.svg", 404, "no run with id \(missing)"),
                ("/api/runs/\(runID)/node", 400, "key: give the node's key (?key=NODE)"),
                ("/api/runs/\(runID)/node?key=nope", 404, "run \(runID) has no node 'nope'"),
                ("/api/runs?status=done", 400, "status: unknown run status 'done' (use pending, running, succeeded, failed, cancelled)"),
                ("/api/runs?per_page=0", 400, "per_page: '0' is not a whole number from 1 to 500"),
                ("/api/runs/\(runID)/events?after=-1", 400, "after: '-1' is not a whole number from 0 to 4611686018427387903"),
                ("/api/nothing", 404, "no such page: /api/nothing"),
            ] {
                let reply = try get(path)
                #expect(reply.status == status, "\(path)")
                #expect(reply.headers["content-type"] == "application/json; charset=utf-8", "\(path)")
                #expect(try reply.json() == ["error": .string(message)], "\(path): \(reply.body)")
            }
            // A page for a bad run id is an HTML error page, escaped.
            let page = try get("/runs/%3Cscript%3E")
            #expect(page.status == 400, "\(page.body)")
            #expect(page.body.contains("&#39;&lt;script&gt;&#39; is not a run id") && !page.body.contains("'<script>'"))
            // Another Host (a rebound DNS name) is refused.
            #expect(try get("/api/runs", headers: ["Host": "evil.example:\(port)"]).status == 421)

            // --listen is checked before anything starts: one line, exit 2.
            for (bad, message) in [
                ("127.0.0.1", "baton: --listen: '127.0.0.1' is not HOST:PORT: the port is missing (for example 127.0.0.1:9464)\n"),
                ("127.0.0.1:70000", "baton: --listen: '127.0.0.1:70000' is not HOST:PORT: the port must be from 1 to 65535\n"),
                ("::1:80", "baton: --listen: '::1:80' is not HOST:PORT: write an IPv6 host in brackets, as [::1]:9464\n"),
            ] {
                let result = try TestCluster.cli(["dashboard", "--listen", bad])
                #expect(result.status == 2 && result.stderr == message && result.stdout.isEmpty, "\(result)")
            }
            let gone = try TestCluster.cli(["dashboard", "--admin-token", "s3cret"])
            #expect(
                gone.status == 2
                    && gone.stderr
                        == "baton: --admin-token is gone: make a token with `baton token create NAME --scope read,operate` and sign in with it at /login\n",
                "\(gone)")
        }
    }
}
