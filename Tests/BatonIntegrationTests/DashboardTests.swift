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

        @Test func publicReadOpensReadsAndNothingElse() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try Self.startDashboard(cluster)
            #expect(try HTTPExchange.request(port: port, "/api/v1/runs").status == 200)
            #expect(try HTTPExchange.request(port: port, "/api/runs").status == 200)
            let page = try HTTPExchange.request(port: port, "/")
            #expect(page.status == 200 && page.body.contains("href=\"/login\"") && page.body.contains("data-operate=\"false\""))
            #expect(try HTTPExchange.request(port: port, "/api/v1/tokens").status == 401, "admin reads still need a token")
            let submit = try HTTPExchange.request(
                "POST", port: port, "/api/v1/runs", headers: ["Content-Type": "application/json"], body: #"{"graph": {"nodes": {}}}"#)
            #expect(submit.status == 401)
            #expect(try HTTPExchange.request(port: port, "/api/v1/runs", headers: ["Authorization": "Bearer wrong"]).status == 401)
            let closed = try Self.startDashboard(cluster, [], name: "dashboard-closed")
            #expect(try HTTPExchange.request(port: closed, "/api/v1/runs").status == 401)
        }

        @Test func theAuditTrailIsForAdminTokens() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try Self.startDashboard(cluster, [], name: "dashboard-audit")
            let admin = try Integration.APITests.token("audit-admin", "admin")
            let reader = try Integration.APITests.token("audit-reader", "read")
            let readerCookie = try Self.sessionCookie(port: port, token: reader)
            _ = try Self.sessionCookie(port: port, token: reader)
            // The page: in the admin's top bar, refused to a reader.
            let asAdmin = ["Authorization": "Bearer \(admin)"]
            #expect(try HTTPExchange.request(port: port, "/", headers: asAdmin).body.contains("href=\"/audit\""))
            #expect(!(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).body.contains("href=\"/audit\"")))
            #expect(try HTTPExchange.request(port: port, "/audit", headers: ["Cookie": readerCookie]).status == 403)
            let page = try HTTPExchange.request(port: port, "/audit", headers: asAdmin)
            #expect(page.status == 200 && page.body.contains("<td class=\"mono\">session.start</td>") && page.body.contains("<td>audit-reader</td>"))
            // The API: admin only, filtered, a page at a time.
            #expect(try HTTPExchange.request(port: port, "/api/v1/audit", headers: ["Authorization": "Bearer \(reader)"]).status == 403)
            let first = try HTTPExchange.request(port: port, "/api/v1/audit?action=session.start&token_name=audit-reader&limit=1", headers: asAdmin)
            #expect(first.status == 200, "\(first.body)")
            let json = try first.json()
            let entries = try #require(json["entries"]?.arrayValue)
            #expect(entries.count == 1 && entries[0]["action"] == "session.start" && entries[0]["token_name"] == "audit-reader")
            #expect(entries[0]["status"] == 303 && entries[0]["detail"] == [:] && entries[0]["source"]?.stringValue?.hasPrefix("127.0.0.1:") == true)
            let cursor = try #require(json["next_cursor"]?.stringValue)
            let second = try HTTPExchange.request(
                port: port, "/api/v1/audit?action=session.start&token_name=audit-reader&limit=1&cursor=\(cursor)", headers: asAdmin
            ).json()
            let older = try #require(second["entries"]?.arrayValue)
            #expect(older.count == 1 && (older[0]["id"]?.intValue ?? 0) < (entries[0]["id"]?.intValue ?? 0))
            for bad in ["cursor=zz", "action=DROP", "limit=0", "token_name=Bad%20Name"] {
                #expect(try HTTPExchange.request(port: port, "/api/v1/audit?\(bad)", headers: asAdmin).status == 400, "\(bad)")
            }
        }

        @Test func aSessionEndsWithItsOwnExpiryOrItsTokens() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try Self.startDashboard(cluster, [], name: "dashboard-expiry")
            let sql = try TestCluster.sql()
            defer { sql.close() }
            let token = try Integration.APITests.token("expiring-reader", "read")
            _ = try sql.execute(
                "update baton.tokens set expires_at = now() + interval '1 hour' where name = 'expiring-reader' and revoked_at is null")
            func secret(_ cookie: String) -> String { String(cookie.dropFirst("baton_session=".count)) }
            // Never beyond the token's expiry (1 h here, not 12 h).
            let first = try Self.sessionCookie(port: port, token: token)
            let bounded = try sql.query(
                "select (s.expires_at = t.expires_at)::text as same from baton.sessions s join baton.tokens t on t.id = s.token_id "
                    + "where s.hash = sha256(convert_to($1, 'UTF8'))", [secret(first)])
            #expect(bounded[row: 0, column: "same"] == "true")
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": first]).status == 200)
            // The session's own expiry.
            _ = try sql.execute(
                "update baton.sessions set expires_at = now() - interval '1 second' where hash = sha256(convert_to($1, 'UTF8'))", [secret(first)])
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": first]).status == 303)
            // The token's expiry ends a session that has not expired.
            let second = try Self.sessionCookie(port: port, token: token)
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": second]).status == 200)
            _ = try sql.execute(
                "update baton.tokens set expires_at = now() - interval '1 second' where name = 'expiring-reader' and revoked_at is null")
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": second]).status == 303)
            #expect(try Self.signIn(port: port, token: token).status == 401, "an expired token cannot sign in")
        }

        /// Signs in over HTTP (`POST /login`) and returns the reply (303 and the cookie, or the form again).
        static func signIn(port: Int, token: String, next: String = "/") throws -> HTTPExchange.Reply {
            let form =
                "token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            return try HTTPExchange.request(
                "POST", port: port, "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form)
        }

        /// The `Cookie` header of a session made by signing in with `token`.
        static func sessionCookie(port: Int, token: String) throws -> String {
            let reply = try signIn(port: port, token: token)
            try #require(reply.status == 303, "\(reply.status) \(reply.body)")
            let cookie = try #require(reply.headers["set-cookie"])
            return String(cookie.prefix { $0 != ";" })
        }

        /// Signs the browser in through the page's form (it lands on `next`).
        static func signIn(_ browser: ChromiumSession, token: String) throws {
            try browser.waitFor(15, "the sign-in form", "!!document.getElementById('login-form')") { $0 == true }
            _ = try browser.evaluate(
                "(() => { document.getElementById('token').value = '\(token)'; document.getElementById('login-form').requestSubmit(); return true })()"
            )
        }

        @Test func signInThenTheOperateScopeReallyCancelsAndRetries() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            defer { sql.close() }
            func requests(_ runID: String) throws -> Int {
                try sql.query("select count(*) as n from baton.requests where run_id = $1::uuid", [runID]).int(0, "n") ?? -1
            }
            let runID = try TestCluster.submit([
                "name": "long nap", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 300]]],
            ])
            try TestCluster.waitUntil(30, "the nap to start") { try store.nodes(ofRun: runID).first?.status == "running" }

            // Not signed in: pages go to the sign-in form, the dashboard's JSON and actions answer 401.
            let port = try Self.startDashboard(cluster, [])
            let path = "/api/runs/\(runID)/cancel"
            let away = try HTTPExchange.request(port: port, "/runs/\(runID)")
            #expect(away.status == 303 && away.headers["location"] == "/login?next=/runs/\(runID)", "\(away)")
            #expect(try HTTPExchange.request(port: port, "/api/runs").status == 401)
            #expect(try HTTPExchange.request("POST", port: port, path).status == 401)
            #expect(try HTTPExchange.request(port: port, "/login").body.contains("id=\"login-form\""))
            // A wrong or unknown token: the form again, with one line, 401.
            for wrong in ["wrong", "baton_" + String(repeating: "A", count: 43)] {
                let refused = try Self.signIn(port: port, token: wrong)
                #expect(refused.status == 401 && refused.body.contains("id=\"login-error\"") && refused.headers["set-cookie"] == nil, "\(refused)")
            }
            // A read token: it reads (bearer or session), but has no buttons and its POSTs are 403.
            let reader = try Integration.APITests.token("dash-reader", "read")
            #expect(try HTTPExchange.request(port: port, "/api/runs", headers: ["Authorization": "Bearer \(reader)"]).status == 200)
            let readerCookie = try Self.sessionCookie(port: port, token: reader)
            let readerPage = try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": readerCookie])
            #expect(readerPage.status == 200 && !readerPage.body.contains("data-action=") && readerPage.body.contains("id=\"sign-out\""))
            let lacks = try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": readerCookie])
            #expect(lacks.status == 403 && lacks.body.contains("token 'dash-reader' lacks the operate scope"), "\(lacks)")
            // An operate token: the cookie's flags; refused from another site; a 409 for a running run's retry.
            let operatorToken = try Integration.APITests.token("dash-ops", "read,operate")
            let signedIn = try Self.signIn(port: port, token: operatorToken, next: "/runs/\(runID)")
            #expect(signedIn.status == 303 && signedIn.headers["location"] == "/runs/\(runID)")
            let setCookie = try #require(signedIn.headers["set-cookie"])
            #expect(setCookie.hasPrefix("baton_session=baton_") && setCookie.contains("Max-Age=43200") && setCookie.contains("Path=/"))
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && !setCookie.contains("Secure"), "\(setCookie)")
            let cookie = String(setCookie.prefix { $0 != ";" })
            let stored = try sql.query(
                "select count(*)::int as n from baton.sessions where hash = sha256(convert_to($1, 'UTF8'))",
                [String(cookie.dropFirst("baton_session=".count))])
            #expect(stored.int(0, "n") == 1, "only the cookie's hash is stored")
            #expect(
                try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": cookie, "Origin": "http://evil.example"]).status == 403)
            #expect(try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": cookie, "Sec-Fetch-Site": "cross-site"]).status == 403)
            #expect(try requests(runID) == 0)
            #expect(try store.runStatus(runID) == .running)
            #expect(try HTTPExchange.request("POST", port: port, "/api/runs/\(runID)/retry", headers: ["Cookie": cookie]).status == 409)
            let page = try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": cookie]).body
            #expect(page.contains("data-action=\"cancel\">Cancel run") && page.contains("data-action=\"retry\" hidden>"))

            // In the browser: signed in through the form, it lands on the run with its buttons.
            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)")
            defer { browser.close() }
            let cancelButton = "document.querySelector('button[data-action=cancel]')"
            try Self.signIn(browser, token: operatorToken)
            try browser.waitFor(15, "the cancel button", "[\(cancelButton).hidden, \(cancelButton).disabled]") { $0 == [false, false] }
            #expect(try browser.evaluate("document.cookie") == "", "the session cookie is HttpOnly")
            _ = try browser.evaluate("window.confirm = () => true; true")

            // With the token: the run is really cancelled (from the page), then really retried.
            _ = try browser.evaluate("\(cancelButton).click(); true")
            try browser.waitFor(30, "the page to show the run cancelled", "document.getElementById('run-status').textContent") {
                $0 == "cancelled"
            }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "cancelled")
            #expect(try browser.evaluate("document.querySelector('button[data-action=retry]').hidden") == false)
            #expect(try store.nodes(ofRun: runID).first?.error?.contains("by request (baton dashboard)") == true)
            let audited = try sql.query(
                "select token_name, source from baton.audit where action = 'run.cancel' and target = $1", [runID])
            #expect(audited.rowCount == 1 && audited[row: 0, column: "token_name"] == "dash-ops", "the cancel is in the audit trail")
            #expect(audited[row: 0, column: "source"]?.hasSuffix("(dashboard)") == true)
            let retry = try HTTPExchange.request("POST", port: port, "/api/runs/\(runID)/retry", headers: ["Cookie": cookie])
            #expect(retry.status == 202, "\(retry.body)")
            try TestCluster.waitUntil(30, "the retried nap to run again") {
                try store.runStatus(runID) == .running && store.nodes(ofRun: runID).first?.status == "running"
            }
            #expect(try store.nodes(ofRun: runID).first?.attempts == 2)
            // And cancelled again, to end it.
            #expect(try HTTPExchange.request("POST", port: port, path, headers: ["Authorization": "Bearer \(operatorToken)"]).status == 202)
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "cancelled")
            #expect(try requests(runID) == 3)

            // Signing out ends the session; revoking a token ends its sessions.
            let out = try HTTPExchange.request("POST", port: port, "/logout", headers: ["Cookie": cookie])
            #expect(out.status == 303 && out.headers["location"] == "/login" && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": cookie]).status == 303)
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).status == 200)
            #expect(try TestCluster.cli(["token", "revoke", "dash-reader"]).status == 0)
            #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).status == 303)
            #expect(try HTTPExchange.request(port: port, "/api/workers", headers: ["Cookie": readerCookie]).status == 401)
        }
    }
}
