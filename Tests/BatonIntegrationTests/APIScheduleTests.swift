import Baton
import Foundation
import Testing

extension Integration {
    /// Schedules through the API on real services: made and deleted (admin), read (read), paused,
    /// resumed and fired now (operate), refused in `baton schedule`'s own words, each write audited.
    @Suite("HTTP API: schedules", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct APIScheduleTests {
        static let echo: JSON = ["name": "api-sched-echo", "nodes": ["say": ["procedure": "baton.echo", "input": ["text": "hi"]]]]

        nonisolated static func call(_ port: Int, _ method: String, _ path: String, _ body: JSON? = nil, token: String) throws -> HTTPExchange.Reply {
            var headers = ["Authorization": "Bearer \(token)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            return try HTTPExchange.request(method, port: port, path, headers: headers, body: body?.serialized() ?? "")
        }

        @Test("admin adds and deletes, read lists and shows with runs, operate pauses, resumes and triggers; unknown names are 404")
        func lifecycle() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            _ = try TestCluster.sql().execute("delete from baton.schedules where name like 'api-%'")
            let port = try APITests.startServer(cluster)
            let admin = try APITests.token("api-sched-admin", "admin")
            let operate = try APITests.token("api-sched-operate", "operate")
            let reader = try APITests.token("api-sched-reader", "read")
            func call(_ method: String, _ path: String, _ body: JSON? = nil, token: String) throws -> HTTPExchange.Reply {
                try Self.call(port, method, path, body, token: token)
            }

            let body: JSON = ["name": "api-nightly", "graph": Self.echo, "cron": "30 2 * * *", "timezone": "Europe/Berlin", "overlap": "queue"]
            #expect(try call("POST", "/api/v1/schedules", body, token: operate).status == 403, "adding needs admin")
            let made = try call("POST", "/api/v1/schedules", body, token: admin)
            #expect(made.status == 201, "\(made.body)")
            let schedule = try made.json()
            #expect(schedule["name"] == "api-nightly" && schedule["cron"] == "30 2 * * *" && schedule["timezone"] == "Europe/Berlin")
            #expect(schedule["overlap"] == "queue" && schedule["paused"] == false && schedule["next_fire_at"]?.stringValue != nil, "\(schedule)")
            let again = try call("POST", "/api/v1/schedules", body, token: admin)
            #expect(again.status == 409 && again.body.contains("schedule 'api-nightly' already exists"), "\(again.body)")
            let yaml: JSON = ["name": "api-tick", "graph": "nodes:\n  say: {procedure: baton.echo, input: {text: yo}}\n", "every": "1h"]
            let fromYAML = try call("POST", "/api/v1/schedules", yaml, token: admin)
            #expect(try fromYAML.status == 201 && fromYAML.json()["every"] == "3600s", "\(fromYAML.body)")

            // A page at a time, by name, following next_cursor to the end.
            var names: [String] = []
            var cursor: String?
            for _ in 0..<100 {
                let page = try call("GET", "/api/v1/schedules?limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""), token: reader)
                #expect(page.status == 200, "\(page.body)")
                let json = try page.json()
                names += json["schedules"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                cursor = json["next_cursor"]?.stringValue
                if cursor == nil { break }
            }
            #expect(names.filter { $0.hasPrefix("api-") } == ["api-nightly", "api-tick"], "\(names)")
            #expect(try call("GET", "/api/v1/schedules?cursor=zz", token: reader).status == 400)

            #expect(try call("POST", "/api/v1/schedules/api-nightly/pause", token: reader).status == 403, "pausing needs operate")
            let paused = try call("POST", "/api/v1/schedules/api-nightly/pause", token: operate)
            #expect(try paused.status == 200 && paused.json()["paused"] == true, "\(paused.body)")
            let resumed = try call("POST", "/api/v1/schedules/api-nightly/resume", token: operate)
            #expect(try resumed.status == 200 && resumed.json()["paused"] == false, "\(resumed.body)")

            let fired = try call("POST", "/api/v1/schedules/api-nightly/trigger", token: operate)
            #expect(fired.status == 201, "\(fired.body)")
            let runID = try #require(try fired.json()["run_id"]?.stringValue)
            #expect(try fired.json()["key"]?.stringValue?.hasPrefix("schedule:api-nightly:trigger:") == true, "\(fired.body)")
            let shown = try call("GET", "/api/v1/schedules/api-nightly?runs=5", token: reader)
            let detail = try shown.json()
            #expect(shown.status == 200 && detail["last_run_id"]?.stringValue == runID, "\(shown.body)")
            #expect(detail["runs"]?.arrayValue?.map { $0["run_id"]?.stringValue } == [runID], "\(shown.body)")
            #expect(try call("GET", "/api/v1/schedules/api-nightly?runs=1001", token: reader).status == 400)
            // A stored graph that no longer validates (written by hand here) is a 422, and starts nothing.
            _ = try TestCluster.sql().execute(
                """
                insert into baton.schedules (name, graph, every_seconds, paused, partition) values ('api-broken', '{"nodes": {"a": {}}}', 3600, true, 0)
                """)
            let broken = try call("POST", "/api/v1/schedules/api-broken/trigger", token: operate)
            #expect(broken.status == 422 && broken.body.contains("schedule api-broken: the stored graph no longer validates"), "\(broken.body)")

            for (method, path) in [
                ("GET", "/api/v1/schedules/api-none"), ("POST", "/api/v1/schedules/api-none/pause"),
                ("POST", "/api/v1/schedules/api-none/resume"), ("POST", "/api/v1/schedules/api-none/trigger"),
                ("DELETE", "/api/v1/schedules/api-none"),
            ] {
                let reply = try call(method, path, token: admin)
                #expect(reply.status == 404 && reply.body.contains("no schedule named 'api-none'"), "\(method) \(path): \(reply.body)")
            }
            #expect(try call("DELETE", "/api/v1/schedules/api-tick", token: operate).status == 403, "deleting needs admin")
            let deleted = try call("DELETE", "/api/v1/schedules/api-tick", token: admin)
            #expect(deleted.status == 204 && deleted.body.isEmpty, "\(deleted.body)")
            #expect(try call("GET", "/api/v1/schedules/api-tick", token: reader).status == 404)

            let actions = try TestCluster.sql().query(
                "select action, target, status from baton.audit where token_name like 'api-sched-%' order by id")
            #expect(
                (0..<actions.rowCount).map { "\(actions[row: $0, column: "action"] ?? "") \(actions[row: $0, column: "target"] ?? "")" } == [
                    "schedule.create api-nightly", "schedule.create api-tick", "schedule.pause api-nightly", "schedule.resume api-nightly",
                    "schedule.trigger api-nightly", "schedule.delete api-tick",
                ])
            _ = try TestCluster.sql().execute("delete from baton.schedules where name like 'api-%'")
        }

        @Test("a bad name, cron, zone, period, rule or graph is 422 in the CLI's words; nothing is stored")
        func refusalsSayWhatTheCLISays() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            _ = try TestCluster.sql().execute("delete from baton.schedules where name like 'api-%'")
            let port = try APITests.startServer(cluster, environment: ["BATON_MAX_GRAPH_BYTES": "4096"])
            let admin = try APITests.token("api-sched-bad", "admin")
            let file = try GraphFixtures.write(Self.echo)
            // The same refusal through `baton schedule add` (options) and `POST /schedules` (members).
            let cases: [([String], JSON)] = [
                (["--cron", "61 * * * *"], ["cron": "61 * * * *"]),
                (["--cron", "* * * *"], ["cron": "* * * *"]),
                (["--cron", "0 2 * * *", "--timezone", "Mars/Olympus"], ["cron": "0 2 * * *", "timezone": "Mars/Olympus"]),
                (["--cron", "0 2 * * *", "--every", "1m"], ["cron": "0 2 * * *", "every": "1m"]),
                ([], [:]),
                (["--every", "soon"], ["every": "soon"]),
                (["--every", "500ms"], ["every": "500ms"]),
                (["--every", "1m", "--timezone", "UTC"], ["every": "1m", "timezone": "UTC"]),
                (["--every", "1m", "--overlap", "wait"], ["every": "1m", "overlap": "wait"]),
                (["--every", "1m", "--catch-up", "some"], ["every": "1m", "catch_up": "some"]),
            ]
            for (options, members) in cases {
                let cli = try TestCluster.cli(["schedule", "add", "api-s", file] + options)
                #expect(cli.status == 2, "\(options): \(cli.stderr)")
                let words = cli.stderr.replacingOccurrences(of: "baton: ", with: "").trimmingCharacters(in: .newlines)
                    .replacingOccurrences(of: "--catch-up", with: "catch_up").replacingOccurrences(of: "--", with: "")
                var body = members.objectValue ?? JSONObject([])
                body["name"] = "api-s"
                body["graph"] = Self.echo
                let reply = try Self.call(port, "POST", "/api/v1/schedules", .object(body), token: admin)
                #expect(reply.status == 422, "\(members): \(reply.body)")
                #expect(try reply.json()["error"]?["message"]?.stringValue == words, "\(members): CLI '\(words)', API \(reply.body)")
            }
            let others: [(String, String?, Int, String)] = [
                (#"{"name": "Bad:Name", "graph": {"nodes": {}}, "every": "1m"}"#, "application/json", 422, "schedule name 'Bad:Name' must be"),
                (
                    #"{"name": "api-s", "graph": {"nodes": {"a": {"procedure": "no.such-procedure"}}}, "every": "1m"}"#, "application/json", 422,
                    "graph: invalid graph (1 problem)"
                ),
                (#"{"name": "api-s", "graph": {"nodes": {}}, "every": "1m", "extra": 1}"#, "application/json", 422, "unknown member 'extra'"),
                (#"{"name": "api-s", "every": "1m"}"#, "application/json", 422, "no `graph`"),
                (#"{"name": "api-s", "graph": {"nodes": {}}, "every": 60}"#, "application/json", 422, "`every` must be a string"),
                (#"{"name": "api-s", "#, "application/json", 400, "not JSON"),
                (#"{"name": "api-s", "graph": {"nodes": {}}, "every": "1m"}"#, "text/plain", 415, "must be JSON"),
                (#"{"name": "api-s", "graph": {"nodes": {}}, "every": "1m"}"#, nil, 415, "Content-Type: application/json"),
                (
                    #"{"name": "api-s", "every": "1m", "graph": {"nodes": {"a": {"procedure": "baton.echo", "input": {"pad": "\#(String(repeating: "x", count: 9000))"}}}}}"#,
                    "application/json", 413, "more than"
                ),
            ]
            for (text, type, status, words) in others {
                var headers = ["Authorization": "Bearer \(admin)"]
                if let type { headers["Content-Type"] = type }
                let reply = try HTTPExchange.request("POST", port: port, "/api/v1/schedules", headers: headers, body: text)
                #expect(reply.status == status && reply.body.contains(words), "\(text.prefix(80)): \(reply.status) \(reply.body)")
            }
            let stored = try TestCluster.sql().query("select count(*)::int as n from baton.schedules where name like 'api-%'")
            #expect(stored.int(0, "n") == 0, "nothing stored")
        }
    }
}
