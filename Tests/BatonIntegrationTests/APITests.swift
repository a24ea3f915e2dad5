import Baton
import Foundation
import Testing

extension Integration {
    /// `baton server`'s HTTP API on real services, by a real client (plain HTTP over a socket, and curl):
    /// tokens and scopes, a run submitted and waited for, idempotency, and bad input refused with the
    /// right status and nothing stored.
    @Suite("HTTP API", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct APITests {
        static let echo: JSON = ["name": "api-echo", "nodes": ["say": ["procedure": "baton.echo", "input": ["text": "hi"]]]]

        /// Starts `baton server` on a free port; returns the port once it listens.
        static func startServer(_ cluster: TestCluster, environment: [String: String] = [:]) throws -> Int {
            let port = HTTPProbe.freePort()
            try cluster.start(["server", "--listen", "127.0.0.1:\(port)"], name: "server", environment: environment)
            try TestCluster.waitUntil(30, "the server to listen") { cluster.log("server").contains("on http://127.0.0.1:\(port) (") }
            return port
        }

        /// A new token's secret, made with `baton token create`.
        static func token(_ name: String, _ scopes: String) throws -> String {
            _ = try TestCluster.sql().execute("update baton.tokens set revoked_at = now() where name = $1 and revoked_at is null", [name])
            let made = try TestCluster.cli(["token", "create", name, "--scope", scopes])
            try #require(made.status == 0, "\(made.stderr)")
            return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        static func runCount() throws -> Int { try TestCluster.sql().query("select count(*)::int as n from baton.runs").int(0, "n") ?? -1 }

        @Test("a token with the submit scope starts a run and waits for its outputs; one with read sees it, and nothing else")
        func submitAndRead() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try Self.startServer(cluster)
            let submitter = try Self.token("api-submitter", "submit")
            let reader = try Self.token("api-reader", "read")
            func call(
                _ method: String, _ path: String, token: String?, body: JSON? = nil, headers: [String: String] = [:]
            ) throws
                -> HTTPExchange.Reply
            {
                var all = headers
                if let token { all["Authorization"] = "Bearer \(token)" }
                if body != nil && all["Content-Type"] == nil { all["Content-Type"] = "application/json" }
                return try HTTPExchange.request(method, port: port, path, headers: all, body: body?.serialized() ?? "")
            }

            let who = try call("GET", "/api/v1/whoami", token: reader)
            let whoJSON = try who.json()
            #expect(who.status == 200 && whoJSON["name"] == "api-reader" && whoJSON["scopes"] == ["read"], "\(who.body)")
            let none = try call("GET", "/api/v1/whoami", token: nil)
            let noneJSON = try none.json()
            #expect(none.status == 401 && none.headers["www-authenticate"] == "Bearer" && noneJSON["error"]?["code"] == "unauthorized")
            #expect(try call("GET", "/api/v1/whoami", token: TokenSecret.generate().text).status == 401, "an unknown token")

            let body: JSON = ["graph": Self.echo, "input": [:]]
            let forbidden = try call("POST", "/api/v1/runs", token: reader, body: body)
            #expect(forbidden.status == 403 && forbidden.body.contains("lacks the submit scope"), "\(forbidden.body)")

            let created = try call("POST", "/api/v1/runs?wait=30s", token: submitter, body: body, headers: ["Idempotency-Key": "api-k1"])
            #expect(created.status == 201, "\(created.body)")
            let run = try created.json()
            let id = try #require(run["id"]?.stringValue)
            #expect(run["status"] == "succeeded" && run["existing"] == false && run["nodes"] == 1 && run["name"] == "api-echo", "\(run)")
            #expect(run["outputs"]?["say"] == ["text": "hi"], "\(run)")

            let audit = try TestCluster.sql().query("select token_name, action, source, status from baton.audit where target = $1", [id])
            #expect(audit.rowCount == 1 && audit[row: 0, column: "token_name"] == "api-submitter" && audit[row: 0, column: "action"] == "run.submit")
            #expect(audit[row: 0, column: "source"]?.hasPrefix("127.0.0.1:") == true && audit.int(0, "status") == 201)

            let again = try call("POST", "/api/v1/runs", token: submitter, body: body, headers: ["Idempotency-Key": "api-k1"])
            let againJSON = try again.json()
            #expect(again.status == 200 && againJSON["id"]?.stringValue == id && againJSON["existing"] == true, "\(again.body)")
            let other: JSON = ["graph": ["nodes": ["x": ["procedure": "baton.echo"]]]]
            let conflict = try call("POST", "/api/v1/runs", token: submitter, body: other, headers: ["Idempotency-Key": "api-k1"])
            #expect(conflict.status == 409 && conflict.body.contains("already belongs to run \(id)"), "\(conflict.body)")

            let read = try call("GET", "/api/v1/runs/\(id.uppercased())", token: reader)
            #expect(read.status == 200, "\(read.body)")
            let detail = try read.json()
            #expect(detail["run"]?["id"]?.stringValue == id && detail["run"]?["status"] == "succeeded")
            #expect(detail["progress"]?["top"]?["succeeded"] == 1 && detail["outputs"]?["say"] == ["text": "hi"], "\(detail)")
            #expect(try call("GET", "/api/v1/runs/\(UUID().uuidString)", token: reader).status == 404)
            #expect(try call("GET", "/api/v1/runs/not-a-run", token: reader).status == 400)
            #expect(try call("GET", "/api/v1/runs/\(id)", token: submitter).status == 403, "submit alone does not read")

            // Its nodes, a page at a time, and one node with its events.
            let nodes = try call("GET", "/api/v1/runs/\(id)/nodes?limit=1", token: reader).json()
            #expect(nodes["nodes"]?.arrayValue?.first?["key"] == "say", "\(nodes)")
            let cursor = try #require(nodes["next_cursor"]?.stringValue, "a full page gives a cursor")
            let after = try call("GET", "/api/v1/runs/\(id)/nodes?limit=1&cursor=\(cursor)", token: reader).json()
            #expect(after["nodes"]?.arrayValue?.isEmpty == true && after["next_cursor"] == .null, "\(after)")
            #expect(try call("GET", "/api/v1/runs/\(id)/nodes?cursor=zz", token: reader).status == 400)
            #expect(try call("GET", "/api/v1/runs/\(id)/nodes?status=done", token: reader).status == 400)
            let node = try call("GET", "/api/v1/runs/\(id)/nodes/say", token: reader).json()
            #expect(node["node"]?["output"] == ["text": "hi"] && (node["events"]?.arrayValue?.count ?? 0) >= 3, "\(node)")
            #expect(try call("GET", "/api/v1/runs/\(id)/nodes/nope", token: reader).status == 404)

            // Its events, followed page by page, and its timeline.
            let events = try call("GET", "/api/v1/runs/\(id)/events?limit=2", token: reader).json()
            #expect(events["events"]?.arrayValue?.count == 2 && events["run_status"] == "succeeded", "\(events)")
            let lastID = try #require(events["last_id"]?.intValue)
            let rest = try call("GET", "/api/v1/runs/\(id)/events?after=\(lastID)&wait=1s", token: reader).json()
            let kinds = (events["events"]?.arrayValue ?? []) + (rest["events"]?.arrayValue ?? [])
            let names = kinds.compactMap { $0["kind"]?.stringValue }
            #expect(names.contains("run_succeeded"), "\(names)")
            #expect(try call("GET", "/api/v1/runs/\(id)/events?limit=0", token: reader).status == 400)
            let timeline = try call("GET", "/api/v1/runs/\(id)/timeline", token: reader)
            #expect(timeline.status == 200 && timeline.body.contains("\"say\""), "\(timeline.body)")

            // The cluster, as `procedures`, `workers` and `coordinators --json` show it.
            let procedures = try call("GET", "/api/v1/procedures", token: reader).json()["procedures"]?.arrayValue ?? []
            #expect(procedures.contains { $0["name"] == "baton.echo" && $0["input"] != nil }, "\(procedures)")
            let workers = try call("GET", "/api/v1/workers?within=30", token: reader).json()["workers"]?.arrayValue ?? []
            #expect(workers.count >= 1 && workers.allSatisfy { $0["procedures"]?.arrayValue?.contains("baton.echo") == true })
            let coordinators = try call("GET", "/api/v1/coordinators", token: reader).json()
            #expect((coordinators["coordinators"]?.arrayValue?.count ?? 0) >= 1 && coordinators["partitions"]?.intValue ?? 0 > 0, "\(coordinators)")
            #expect(try call("GET", "/api/v1/workers?within=-1", token: reader).status == 400)

            // A real client too: curl, as docs/api.md shows it.
            let curl = try ChildProcess.run(
                "/usr/bin/curl",
                ["-sS", "-H", "Authorization: Bearer \(reader)", "http://127.0.0.1:\(port)/api/v1/runs/\(id)"], environment: [:])
            #expect(curl.status == 0, "\(curl.stderr)")
            #expect(try JSONParser.parse(curl.stdout)["run"]?["id"]?.stringValue == id, "\(curl.stdout)")
        }

        @Test("bad input gets its status and the CLI's words, and stores nothing")
        func badInput() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try Self.startServer(cluster, environment: ["BATON_MAX_GRAPH_BYTES": "4096"])
            let submitter = try Self.token("api-bad", "submit")
            let before = try Self.runCount()
            func post(_ body: String, contentType: String? = "application/json", token: String? = nil) throws -> HTTPExchange.Reply {
                var headers = ["Authorization": "Bearer \(token ?? submitter)"]
                if let contentType { headers["Content-Type"] = contentType }
                return try HTTPExchange.request("POST", port: port, "/api/v1/runs", headers: headers, body: body)
            }
            let cases: [(String, String?, Int, String)] = [
                (#"{"graph": {"nodes": {}}}"#, "text/plain", 415, "must be JSON"),
                (#"{"graph": {"nodes": {}}}"#, nil, 415, "Content-Type: application/json"),
                (#"{"graph": "#, "application/json", 400, "not JSON"),
                (#"{"graph": {"nodes": {}}, "extra": 1}"#, "application/json", 422, "unknown member 'extra'"),
                (
                    #"{"graph": {"nodes": {"a": {"procedure": "no.such.procedure"}}}}"#, "application/json", 422,
                    "unknown procedure 'no.such.procedure'"
                ),
                (#"{"graph": "nodes:\n  a: [unclosed"}"#, "application/json; charset=utf-8", 422, "graph:"),
                (
                    #"{"graph": {"nodes": {"a": {"procedure": "baton.echo", "input": {"pad": "\#(String(repeating: "x", count: 8000))"}}}}}"#,
                    "application/json", 413, "more than the limit of 4096"
                ),
            ]
            for (body, type, status, words) in cases {
                let reply = try post(body, contentType: type)
                #expect(reply.status == status, "\(body.prefix(80)): \(reply.status) \(reply.body)")
                let error = try reply.json()["error"]
                #expect(error?["message"]?.stringValue?.contains(words) == true, "\(body.prefix(80)): \(reply.body)")
                #expect(error?["details"]?.arrayValue != nil && !(error?["message"]?.stringValue?.contains("\n") ?? true))
            }
            let revoked = try Self.token("api-gone", "submit")
            _ = try TestCluster.cli(["token", "revoke", "api-gone"])
            #expect(try post(#"{"graph": {"nodes": {}}}"#, token: revoked).status == 401, "a revoked token")
            #expect(try Self.runCount() == before, "nothing stored")
            // The document needs no token.
            let document = try HTTPExchange.request(port: port, "/api/v1/openapi.json")
            #expect(document.status == 200)
            #expect(try document.json()["openapi"] == "3.1.0")
        }
    }
}
