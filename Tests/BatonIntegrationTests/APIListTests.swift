import Baton
import Foundation
import Testing

extension Integration {
    /// `baton server`'s API lists, checks and follows: runs a page at a time, a graph validated and
    /// nothing stored, and a run's events as server-sent events (read by curl), resumed by id.
    @Suite("HTTP API lists and streams", .serialized)
    @MainActor
    struct APIListTests {
        static func call(_ method: String, _ path: String, port: Int, token: String, body: JSON? = nil) throws -> HTTPExchange.Reply {
            var headers = ["Authorization": "Bearer \(token)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            return try HTTPExchange.request(method, port: port, path, headers: headers, body: body?.serialized() ?? "")
        }

        @Test("runs are listed newest first a page at a time, filtered; a cursor not given is a 400")
        func listRuns() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let reader = try APITests.token("list-reader", "read")
            let tag = "list-\(UInt32.random(in: 0...UInt32.max))"
            var ids: [String] = []
            for i in 0..<5 {
                let name = "\(tag)-\(i % 2 == 0 ? "even" : "odd")"
                ids.append(try TestCluster.submit(["name": .string(name), "nodes": ["say": ["procedure": "baton.echo"]]]))
            }
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try Self.call(
                    "GET", "/api/v1/runs?name=\(tag)&limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), port: port, token: reader)
                #expect(page.status == 200, "\(page.body)")
                let json = try page.json()
                seen += (json["runs"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                cursor = json["next_cursor"]?.stringValue
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == ids.reversed(), "newest first, each once: \(seen) vs \(ids)")
            #expect(pages == 3, "5 runs in pages of 2")
            let odd = try Self.call("GET", "/api/v1/runs?name=\(tag)-odd&status=pending&since=1h", port: port, token: reader).json()
            #expect((odd["runs"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } == [ids[3], ids[1]], "\(odd)")
            #expect(odd["next_cursor"] == .null)
            let nul = try Self.call("GET", "/api/v1/runs?name=a%00b", port: port, token: reader)
            let nulJSON = try nul.json()
            #expect(nul.status == 200 && nulJSON["runs"] == [], "no name holds a NUL: \(nul.body)")
            let future = try Self.call("GET", "/api/v1/runs?name=\(tag)&since=2999-01-01T00:00:00Z", port: port, token: reader).json()
            #expect(future["runs"]?.arrayValue?.isEmpty == true, "\(future)")
            for bad in ["cursor=zz", "cursor=r1_nope", "limit=0", "status=done", "since=yesterday", "schedule=Bad:Name"] {
                let reply = try Self.call("GET", "/api/v1/runs?\(bad)", port: port, token: reader)
                let json = try reply.json()
                #expect(reply.status == 400 && json["error"]?["code"] == "bad_request", "\(bad): \(reply.body)")
            }
        }

        @Test("validate answers a graph's problems as submit does, and stores nothing")
        func validate() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let submitter = try APITests.token("validate-submitter", "submit")
            let before = try APITests.runCount()
            let good = try Self.call("POST", "/api/v1/validate", port: port, token: submitter, body: ["graph": APITests.echo])
            let goodJSON = try good.json()
            #expect(good.status == 200 && goodJSON["valid"] == true && goodJSON["name"] == "api-echo" && goodJSON["nodes"] == 1, "\(good.body)")
            let bad = try Self.call(
                "POST", "/api/v1/validate", port: port, token: submitter, body: ["graph": "nodes:\n  a: {procedure: baton.echo, after: [zz]}\n"])
            let badJSON = try bad.json()
            #expect(bad.status == 422 && badJSON["error"]?["message"]?.stringValue?.hasPrefix("graph: invalid graph (") == true, "\(bad.body)")
            let named = try Self.call("POST", "/api/v1/validate", port: port, token: submitter, body: ["graph": APITests.echo, "name": "x"])
            #expect(named.status == 422 && named.body.contains("unknown member 'name'"), "\(named.body)")
            #expect(try APITests.runCount() == before, "validate stores nothing")
        }

        @Test("a run's events stream live as server-sent events, end with its status, and resume after Last-Event-ID")
        func streamEvents() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try APITests.startServer(cluster)
            let reader = try APITests.token("stream-reader", "read")
            let graph: JSON = ["name": "api-stream", "nodes": ["slow": ["procedure": "demo.steps", "input": ["steps": 3, "seconds": 0.3]]]]
            let id = try TestCluster.submit(graph)
            func curl(_ extra: [String]) throws -> (status: Int32, frames: [(id: Int?, event: String?, data: JSON?)], stdout: String) {
                let url = "http://127.0.0.1:\(port)/api/v1/runs/\(id)/events/stream"
                let run = try ChildProcess.run(
                    "/usr/bin/curl", ["-sSN", "--max-time", "60", "-H", "Authorization: Bearer \(reader)"] + extra + [url], environment: [:])
                let frames = run.stdout.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(":") }.map { frame in
                    var id: Int?
                    var event: String?
                    var data: JSON?
                    for line in frame.split(separator: "\n") {
                        if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                        if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                        if line.hasPrefix("data: ") { data = try? JSONParser.parse(String(line.dropFirst(6))) }
                    }
                    return (id, event, data)
                }
                return (run.status, frames, run.stdout)
            }
            let live = try curl([])
            #expect(live.status == 0, "the stream closes itself once the run ended")
            let ids = live.frames.compactMap(\.id)
            #expect(!ids.isEmpty && ids == ids.sorted() && Set(ids).count == ids.count, "in id order, each once: \(ids)")
            #expect(live.frames.last?.event == "end" && live.frames.last?.data?["status"] == "succeeded", "\(live.stdout.suffix(300))")
            let kinds = live.frames.compactMap { $0.data?["kind"]?.stringValue }
            #expect(kinds.contains("started") && kinds.last == "run_succeeded", "\(kinds)")
            let stored = try TestCluster.sql().query("select count(*)::int as n from baton.events where run_id = $1::uuid", [id]).int(0, "n")
            #expect(ids.count == stored, "every stored event streamed")

            let timeline = try Self.call("GET", "/api/v1/runs/\(id)/timeline", port: port, token: reader).json()
            #expect(
                timeline["run"]?.stringValue == id && timeline["status"] == "succeeded" && timeline["nodes"]?.arrayValue?.count == 1, "\(timeline)")

            let middle = ids[ids.count / 2]
            let resumed = try curl(["-H", "Last-Event-ID: \(middle)"])
            #expect(resumed.frames.compactMap(\.id) == ids.filter { $0 > middle }, "only what came after \(middle)")
            let after = try curl(["-G", "-d", "after=\(middle)"])
            #expect(after.frames.compactMap(\.id) == ids.filter { $0 > middle })

            let unknown = try Self.call("GET", "/api/v1/runs/\(UUID().uuidString.lowercased())/events/stream", port: port, token: reader)
            #expect(unknown.status == 404, "\(unknown.body)")
            let badResume = try HTTPExchange.request(
                "GET", port: port, "/api/v1/runs/\(id)/events/stream", headers: ["Authorization": "Bearer \(reader)", "Last-Event-ID": "x1"])
            #expect(badResume.status == 400, "\(badResume.body)")
            let noToken = try HTTPExchange.request("GET", port: port, "/api/v1/runs/\(id)/events/stream")
            #expect(noToken.status == 401)
        }

        @Test("a token over its rate gets 429 with Retry-After; another token is not slowed; a bad rate stops the server with one line")
        func rateLimit() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = HTTPProbe.freePort()
            try cluster.start(["server", "--listen", "127.0.0.1:\(port)", "--rate-limit", "1/m", "--rate-burst", "3"], name: "server")
            try TestCluster.waitUntil(30, "the server to listen") { cluster.log("server").contains("on http://127.0.0.1:\(port) (") }
            let busy = try APITests.token("rate-busy", "read")
            let calm = try APITests.token("rate-calm", "read")
            let statuses = try (0..<4).map { _ in try Self.call("GET", "/api/v1/whoami", port: port, token: busy) }
            #expect(statuses.map(\.status) == [200, 200, 200, 429], "\(statuses.map(\.body))")
            let refused = try #require(statuses.last)
            let refusedJSON = try refused.json()
            #expect(refusedJSON["error"]?["code"] == "rate_limited" && Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1, "\(refused.headers)")
            #expect(try Self.call("GET", "/api/v1/whoami", port: port, token: calm).status == 200, "each token has its own bucket")
            let bad = try TestCluster.cli(["server", "--listen", "127.0.0.1:\(HTTPProbe.freePort())", "--rate-limit", "fast"])
            #expect(bad.status == 2 && bad.stderr.contains("--rate-limit: 'fast' is not a rate"), "\(bad.stderr)")
        }
    }
}
