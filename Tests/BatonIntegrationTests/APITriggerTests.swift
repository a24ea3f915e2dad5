import Baton
import Foundation
import Testing

extension Integration {
    /// Triggers and events on real services: `baton trigger add` and `POST /triggers` bind graphs to an
    /// event type; `POST /events` starts the matching ones once per event id, however often and however
    /// concurrently it is posted, and heals a crash between the event and its runs on a repost.
    @Suite("HTTP API: triggers and events", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct APITriggerTests {
        static let graph: JSON = [
            "name": "api-trig", "input": ["tier": "none", "order": 0],
            "nodes": ["say": ["procedure": "baton.echo", "input": ["text": ["$input": "/tier"]]]],
        ]

        static func clean() throws {
            _ = try TestCluster.sql().execute("delete from baton.triggers where name like 'api-%'")
            _ = try TestCluster.sql().execute("delete from baton.trigger_events where id like 'api-%'")
        }

        /// How many runs event `id` started (its data carries its id as `event`, so the runs' input does).
        static func runs(ofEvent id: String) throws -> Int {
            try TestCluster.sql().query("select count(*)::int as n from baton.runs where input ->> 'event' = $1", [id]).int(0, "n") ?? -1
        }

        @Test("matching triggers start once per event id: reposts, concurrent posts and a crash between event and runs")
        func eventsStartTheirGraphsOnce() throws {
            try Self.clean()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let admin = try APITests.token("api-trig-admin", "admin")
            let submitter = try APITests.token("api-trig-submit", "submit")
            let reader = try APITests.token("api-trig-reader", "read")
            func call(_ method: String, _ path: String, _ body: JSON? = nil, token: String) throws -> HTTPExchange.Reply {
                try APIScheduleTests.call(port, method, path, body, token: token)
            }
            let tag = String(UUID().uuidString.prefix(8)).lowercased()

            // One trigger from the CLI (every api.order event), one through the API (gold ones only).
            let file = try GraphFixtures.write(Self.graph)
            let added = try TestCluster.cli(["trigger", "add", "api-all", file, "--event", "api.order"])
            #expect(added.status == 0 && added.stdout == "trigger api-all added: starts api-trig on api.order events\n", "\(added.stderr)")
            let body: JSON = [
                "name": "api-gold", "graph": Self.graph, "event_type": "api.order", "filters": [["pointer": "/tier", "value": "gold"]],
            ]
            #expect(try call("POST", "/api/v1/triggers", body, token: submitter).status == 403, "adding needs admin")
            let made = try call("POST", "/api/v1/triggers", body, token: admin)
            #expect(made.status == 201, "\(made.body)")
            #expect(try made.json()["filters"] == [["pointer": "/tier", "value": "gold"]] && made.json()["created_by"] == "api-trig-admin")
            #expect(try call("POST", "/api/v1/triggers", body, token: admin).status == 409)
            let listed = try call("GET", "/api/v1/triggers?event_type=api.order", token: admin).json()
            #expect(listed["triggers"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["api-all", "api-gold"], "\(listed)")
            #expect(try call("GET", "/api/v1/triggers", token: reader).status == 403, "triggers are admin's to read")
            let one = try call("GET", "/api/v1/triggers/api-gold", token: admin)
            #expect(try one.status == 200 && one.json()["graph"]?["name"] == "api-trig", "\(one.body)")
            let text = try TestCluster.cli(["trigger", "list"])
            #expect(text.stdout.contains("api-gold") && text.stdout.contains("/tier=gold"), "\(text.stdout)")

            // The first post starts both; a repost answers the same runs and starts nothing.
            let gold: JSON = [
                "type": "api.order", "id": .string("api-e1-\(tag)"), "data": ["tier": "gold", "order": 7, "event": .string("api-e1-\(tag)")],
            ]
            #expect(try call("POST", "/api/v1/events", gold, token: reader).status == 403, "posting needs submit")
            let first = try call("POST", "/api/v1/events", gold, token: submitter)
            #expect(first.status == 202, "\(first.body)")
            let runs = try first.json()["runs"]?.arrayValue ?? []
            #expect(runs.compactMap { $0["trigger"]?.stringValue } == ["api-all", "api-gold"], "\(first.body)")
            #expect(runs.allSatisfy { $0["run_id"]?.stringValue != nil && $0["error"] == .null }, "\(first.body)")
            let runID = try #require(runs.first?["run_id"]?.stringValue)
            let input = try TestCluster.sql().query("select input::text as input from baton.runs where id = $1::uuid", [runID])
            #expect(
                try JSONParser.parse(input[row: 0, column: "input"] ?? "") == ["tier": "gold", "order": 7, "event": .string("api-e1-\(tag)")],
                "the event's data is the input")
            let repost = try call("POST", "/api/v1/events", gold, token: submitter)
            #expect(try repost.status == 200 && repost.json()["duplicate"] == true, "\(repost.body)")
            #expect(try repost.json()["runs"] == first.json()["runs"], "\(repost.body)")
            #expect(try Self.runs(ofEvent: "api-e1-\(tag)") == 2)
            var changed = gold.objectValue ?? JSONObject([])
            changed["data"] = ["tier": "silver"]
            let conflict = try call("POST", "/api/v1/events", .object(changed), token: submitter)
            #expect(conflict.status == 409 && conflict.body.contains("received before with another type or data"), "\(conflict.body)")

            // A silver order matches only the trigger without filters.
            let silver: JSON = ["type": "api.order", "id": .string("api-e2-\(tag)"), "data": ["tier": "silver"]]
            let second = try call("POST", "/api/v1/events", silver, token: submitter)
            #expect(try second.status == 202 && second.json()["runs"]?.arrayValue?.count == 1, "\(second.body)")
            let nothing = try call("POST", "/api/v1/events", ["type": "api.other", "id": .string("api-e3-\(tag)")], token: submitter)
            #expect(try nothing.status == 202 && nothing.json()["runs"] == [], "\(nothing.body)")

            // Eight posts of one id at once: one first receipt, one run per trigger, the same runs for all.
            let concurrent: JSON = [
                "type": "api.order", "id": .string("api-e4-\(tag)"), "data": ["tier": "gold", "event": .string("api-e4-\(tag)")],
            ]
            let replies = Replies()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let reply = try? APIScheduleTests.call(port, "POST", "/api/v1/events", concurrent, token: submitter)
                replies.add(reply)
            }
            let answers = replies.all
            #expect(answers.count == 8 && answers.filter { $0.status == 202 }.count == 1, "\(answers.map { "\($0.status) \($0.body)" })")
            #expect(answers.filter { $0.status == 200 }.count == 7, "\(answers.map(\.status))")
            #expect(Set(answers.map { (try? $0.json()["runs"])?.serialized() ?? "" }).count == 1, "every answer names the same runs")
            #expect(try Self.runs(ofEvent: "api-e4-\(tag)") == 2)

            // A crash after the event's row, before any run: the repost starts them.
            _ = try TestCluster.sql().execute(
                """
                insert into baton.trigger_events (id, type, data, matched) values ($1::text, 'api.order', jsonb_build_object('tier', 'gold', 'event', $1::text), '{api-all,api-gold}')
                """, ["api-e5-\(tag)"])
            let healed = try call(
                "POST", "/api/v1/events",
                ["type": "api.order", "id": .string("api-e5-\(tag)"), "data": ["tier": "gold", "event": .string("api-e5-\(tag)")]], token: submitter)
            #expect(
                try healed.status == 200 && healed.json()["runs"]?.arrayValue?.compactMap { $0["run_id"]?.stringValue }.count == 2, "\(healed.body)"
            )
            #expect(try Self.runs(ofEvent: "api-e5-\(tag)") == 2)
            // A crash after the runs were submitted, before they were recorded: the repost finds them by key.
            _ = try TestCluster.sql().execute("delete from baton.trigger_runs where event_id = $1", ["api-e1-\(tag)"])
            let found = try call("POST", "/api/v1/events", gold, token: submitter)
            #expect(try found.json()["runs"] == first.json()["runs"], "\(found.body)")
            #expect(try Self.runs(ofEvent: "api-e1-\(tag)") == 2, "no second run")

            // Received events, newest first, with their runs; and on the dashboard.
            let events = try call("GET", "/api/v1/events?type=api.order&limit=2", token: reader)
            let eventPage = try events.json()
            #expect(
                events.status == 200 && eventPage["events"]?.arrayValue?.count == 2 && eventPage["next_cursor"]?.stringValue != nil, "\(events.body)")
            var seen: [String] = []
            var cursor: String?
            for _ in 0..<50 {
                let page = try call("GET", "/api/v1/events?type=api.order&limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: reader).json()
                seen += page["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = page["next_cursor"]?.stringValue
                if cursor == nil { break }
            }
            #expect(Set(["e1", "e2", "e4", "e5"].map { "api-\($0)-\(tag)" }).isSubset(of: Set(seen)), "\(seen)")
            let e1 = try call("GET", "/api/v1/events?type=api.order&limit=1000", token: reader).json()["events"]?.arrayValue?.first {
                $0["id"]?.stringValue == "api-e1-\(tag)"
            }
            #expect(
                e1?["matched"] == ["api-all", "api-gold"] && e1?["token_name"] == "api-trig-submit" && e1?["runs"]?.arrayValue?.count == 2,
                "\(String(describing: e1))")
            let listedByCLI = try TestCluster.cli(["trigger", "events", "--type", "api.order", "--limit", "1000"])
            #expect(
                listedByCLI.status == 0 && listedByCLI.stdout.contains("api-e1-\(tag)")
                    && listedByCLI.stdout.contains("api-gold: \(runs[1]["run_id"]?.stringValue ?? "?")"), "\(listedByCLI.stdout)")
            let eventsJSON = try JSONParser.parse(try TestCluster.cli(["trigger", "events", "--json", "--limit", "1000"]).stdout)
            #expect(eventsJSON.arrayValue?.contains { $0["id"]?.stringValue == "api-e5-\(tag)" && $0["runs"]?.arrayValue?.count == 2 } == true)
            #expect(try TestCluster.cli(["trigger", "events", "--limit", "0"]).stderr == "baton: --limit must be from 1 to 1000\n")
            let dashboard = try HTTPExchange.request(port: port, "/events", headers: ["Authorization": "Bearer \(admin)"])
            #expect(dashboard.status == 200 && dashboard.body.contains("api-e1-\(tag)") && dashboard.body.contains("href=\"/runs/\(runID)\""))

            #expect(try call("DELETE", "/api/v1/triggers/api-gold", token: admin).status == 204)
            #expect(try TestCluster.cli(["trigger", "delete", "api-all"]).stdout == "trigger api-all deleted\n")
            let audit = try TestCluster.sql().query(
                "select action, count(*)::int as n from baton.audit where target like 'api-%' and action like 'trigger.%' group by action order by action"
            )
            #expect(
                (0..<audit.rowCount).map { audit[row: $0, column: "action"] ?? "" } == ["trigger.create", "trigger.delete"], "CLI and API audited")
        }

        @Test("each schedule, trigger and event operation needs the scope the document gives it, and no more")
        func scopesAreTheDocuments() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let document = try HTTPExchange.request(port: port, "/api/v1/openapi.json").json()
            var tokens: [AccessScope: String] = [:]
            for scope in AccessScope.allCases { tokens[scope] = try APITests.token("api-scope-\(scope.rawValue)", scope.rawValue) }
            var checked = 0
            for (path, item) in document["paths"]?.objectValue ?? JSONObject([]) {
                guard ["/schedules", "/triggers", "/events"].contains(where: { path.hasPrefix($0) }) else { continue }
                for (method, operation) in item.objectValue ?? JSONObject([]) {
                    let needed = try #require(operation["x-baton-scope"]?.stringValue.flatMap(AccessScope.init(rawValue:)), "\(method) \(path)")
                    // A name no schedule or trigger has: an allowed call is answered 404, 415 or 422, and changes nothing.
                    let concrete = "/api/v1" + path.replacingOccurrences(of: "{name}", with: "api-scope-none")
                    for (scope, token) in tokens {
                        let reply = try HTTPExchange.request(
                            method.uppercased(), port: port, concrete, headers: ["Authorization": "Bearer \(token)"])
                        if needed.isGranted(by: [scope]) {
                            #expect(reply.status != 403 && reply.status != 401, "\(method) \(path) with \(scope): \(reply.status) \(reply.body)")
                        } else {
                            #expect(reply.status == 403, "\(method) \(path) with \(scope): \(reply.status) \(reply.body)")
                        }
                        checked += 1
                    }
                }
            }
            #expect(checked == 13 * 4, "every operation of the three resources, with each scope")
        }

        @Test("bad input: unknown trigger 404, bad filter 422, malformed 400, wrong type 415, oversize 413; the CLI's one line")
        func badInput() throws {
            try Self.clean()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster, environment: ["BATON_MAX_INPUT_BYTES": "2048"])
            let admin = try APITests.token("api-trig-bad", "admin")
            let headers = ["Authorization": "Bearer \(admin)"]
            for (method, path) in [("GET", "/api/v1/triggers/api-none"), ("DELETE", "/api/v1/triggers/api-none")] {
                let reply = try HTTPExchange.request(method, port: port, path, headers: headers)
                #expect(reply.status == 404 && reply.body.contains("no trigger named 'api-none'"), "\(method): \(reply.body)")
            }
            let graph = Self.graph.serialized()
            let cases: [(String, String, String?, Int, String)] = [
                (
                    "/api/v1/triggers",
                    #"{"name": "api-t", "graph": \#(graph), "event_type": "api.x", "filters": [{"pointer": "tier", "value": 1}]}"#,
                    "application/json", 422, "filters[0]: pointer 'tier' must start with '/' (such as /tier)"
                ),
                (
                    "/api/v1/triggers",
                    #"{"name": "api-t", "graph": \#(graph), "event_type": "api.x", "filters": [{"pointer": "/a~2", "value": 1}]}"#,
                    "application/json", 422, "'~' must be followed by 0 or 1"
                ),
                (
                    "/api/v1/triggers", #"{"name": "api-t", "graph": \#(graph), "event_type": "api.x", "filters": [{"pointer": "/a"}]}"#,
                    "application/json", 422, "needs `value`"
                ),
                (
                    "/api/v1/triggers", #"{"name": "API T", "graph": \#(graph), "event_type": "api.x"}"#, "application/json", 422,
                    "trigger name 'API T' must be"
                ),
                (
                    "/api/v1/triggers", #"{"name": "api-t", "graph": \#(graph), "event_type": "no spaces"}"#, "application/json", 422,
                    "event type 'no spaces'"
                ),
                (
                    "/api/v1/triggers", #"{"name": "api-t", "graph": {"nodes": {"a": {"procedure": "no.such"}}}, "event_type": "api.x"}"#,
                    "application/json", 422, "graph: invalid graph (1 problem)"
                ),
                ("/api/v1/triggers", #"{"name": "api-t", "#, "application/json", 400, "not JSON"),
                ("/api/v1/triggers", #"{"name": "api-t", "graph": {}, "event_type": "api.x"}"#, "text/plain", 415, "must be JSON"),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-1""#, "application/json", 400, "not JSON"),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-1"}"#, "application/x-www-form-urlencoded", 415, "must be JSON"),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-1"}"#, nil, 415, "Content-Type: application/json"),
                ("/api/v1/events", #"{"type": "api.x"}"#, "application/json", 422, "needs `id`"),
                ("/api/v1/events", #"{"type": "api.x", "id": ""}"#, "application/json", 422, "needs `id`"),
                ("/api/v1/events", #"{"id": "api-1"}"#, "application/json", 422, "needs `type`"),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-1", "data": [1]}"#, "application/json", 422, "`data` must be an object"),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-1", "extra": 1}"#, "application/json", 422, "unknown member 'extra'"),
                (
                    "/api/v1/events", #"{"type": "api.x", "id": "api-1", "data": {"a": ["x\u0000y"]}}"#, "application/json", 422,
                    "/data/a/0: holds U+0000 (NUL)"
                ),
                ("/api/v1/events", #"{"type": "api.x", "id": "api-\u0000"}"#, "application/json", 422, "/id: holds U+0000 (NUL)"),
                (
                    "/api/v1/triggers",
                    #"{"name": "api-t", "graph": \#(graph), "event_type": "api.x", "filters": [{"pointer": "/a", "value": "\u0000"}]}"#,
                    "application/json", 422, "/filters/0/value: holds U+0000"
                ),
                (
                    "/api/v1/events", #"{"type": "api.x", "id": "api-1", "data": {"pad": "\#(String(repeating: "x", count: 70_000))"}}"#,
                    "application/json", 413, "larger than"
                ),
            ]
            for (path, text, type, status, words) in cases {
                var all = headers
                if let type { all["Content-Type"] = type }
                let reply = try HTTPExchange.request("POST", port: port, path, headers: all, body: text)
                #expect(reply.status == status, "\(text.prefix(100)): \(reply.status) \(reply.body)")
                let message = try reply.json()["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(words) && !message.contains("\n"), "\(text.prefix(100)): \(reply.body)")
            }
            let stored = try TestCluster.sql().query(
                "select (select count(*) from baton.triggers where name like 'api-%')::int + (select count(*) from baton.trigger_events where id like 'api-%')::int as n"
            )
            #expect(stored.int(0, "n") == 0, "nothing stored")

            // The CLI: one line, exit 2, nothing stored.
            let file = try GraphFixtures.write(Self.graph)
            let invalid = try GraphFixtures.write(["nodes": ["a": ["procedure": "no.such-procedure"]]])
            #expect(try TestCluster.cli(["trigger", "add", "api-taken", file, "--event", "api.x"]).status == 0)
            let cli: [([String], String)] = [
                (
                    ["add", "api-t", file, "--event", "api.x", "--filter", "tier=gold"],
                    "--filter 'tier=gold': pointer 'tier' must start with '/' (such as /tier)"
                ),
                (["add", "api-t", file, "--event", "api.x", "--filter", "/tier"], "--filter '/tier' is not POINTER=VALUE"),
                (["add", "api-t", file, "--event", "api.x", "--filter", "=gold"], "--filter '=gold': the pointer is empty"),
                (["add", "api-t", file, "--event", "no spaces"], "--event: event type 'no spaces'"),
                (["add", "Bad", file, "--event", "api.x"], "trigger name 'Bad' must be"),
                (["add", "api-taken", file, "--event", "api.x"], "trigger 'api-taken' already exists"),
                (["add", "api-t", invalid, "--event", "api.x"], "invalid graph (1 problem)"),
                (["delete", "api-none"], "no trigger named 'api-none'"),
            ]
            for (arguments, words) in cli {
                let result = try TestCluster.cli(["trigger"] + arguments)
                #expect(result.status == 2 && result.stderr.contains(words), "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1 || words.contains("invalid graph"), "\(arguments): \(result.stderr)")
            }
            let left = try TestCluster.sql().query("select string_agg(name, ',') as names from baton.triggers where name like 'api-%'")
            #expect(left[row: 0, column: "names"] == "api-taken")
            try Self.clean()
        }
    }

    /// Replies collected from several threads.
    final class Replies: @unchecked Sendable {
        private let lock = NSLock()
        private var replies: [HTTPExchange.Reply] = []
        func add(_ reply: HTTPExchange.Reply?) { lock.withLock { if let reply { replies.append(reply) } } }
        var all: [HTTPExchange.Reply] { lock.withLock { replies } }
    }
}
