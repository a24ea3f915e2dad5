import Baton
import Foundation
import Testing

extension Integration {
    /// The API's writes beyond submit, on real services: cancel, retry and signal (operate scope), and
    /// tokens made, listed and revoked (admin scope), each in the audit trail.
    @Suite("HTTP API: operate and admin", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct APIOperateTests {
        @Test("operate cancels, retries and signals; read may not; refusals are 404 and 409")
        func cancelRetrySignal() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try APITests.startServer(cluster)
            let operate = try APITests.token("api-operate", "operate")
            let reader = try APITests.token("api-operate-reader", "read")
            func post(_ path: String, _ body: JSON?, token: String) throws -> HTTPExchange.Reply {
                var headers = ["Authorization": "Bearer \(token)"]
                if body != nil { headers["Content-Type"] = "application/json" }
                return try HTTPExchange.request("POST", port: port, path, headers: headers, body: body?.serialized() ?? "")
            }
            let store = try TestCluster.store()
            defer { store.close() }

            let sleeper = try TestCluster.submit(["name": "api-sleep", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 30]]]])
            try TestCluster.waitUntil(30, "the nap to run") { try TestCluster.nodes(store, sleeper)["nap"]?.status == "running" }
            #expect(try post("/api/v1/runs/\(sleeper)/cancel", nil, token: reader).status == 403)
            let cancelled = try post("/api/v1/runs/\(sleeper)/cancel?wait=20s", ["reason": "enough"], token: operate)
            #expect(cancelled.status == 202, "\(cancelled.body)")
            let answer = try cancelled.json()
            #expect(answer["applied"] == true && answer["status"] == "cancelled", "\(answer)")
            #expect(try store.run(sleeper)?.error?.contains("cancelled: enough") == true)
            let again = try post("/api/v1/runs/\(sleeper)/cancel", nil, token: operate)
            #expect(again.status == 409 && again.body.contains("already ended"), "\(again.body)")

            let badFrom = try post("/api/v1/runs/\(sleeper)/retry", ["from": "nope"], token: operate)
            #expect(badFrom.status == 422 && badFrom.body.contains("has no node 'nope'"), "\(badFrom.body)")
            let retried = try post("/api/v1/runs/\(sleeper)/retry", [:], token: operate)
            #expect(retried.status == 202, "\(retried.body)")
            try TestCluster.waitUntil(30, "the retry to run the nap again") { try TestCluster.nodes(store, sleeper)["nap"]?.status == "running" }
            _ = try post("/api/v1/runs/\(sleeper)/cancel?wait=20s", nil, token: operate)

            let approval = try TestCluster.submit(try GraphFixtures.example(SignalIntegrationTests.approval))
            try TestCluster.waitUntil(30, "approve to wait") { try TestCluster.nodes(store, approval)["approve"]?.status == "waiting" }
            let unknownNode = try post("/api/v1/runs/\(approval)/signals", ["node": "aprove", "value": 1], token: operate)
            #expect(unknownNode.status == 404 && unknownNode.body.contains("did you mean 'approve'"), "\(unknownNode.body)")
            let signalled = try post("/api/v1/runs/\(approval)/signals?wait=20s", ["node": "approve", "value": ["by": "ada"]], token: operate)
            #expect(signalled.status == 202, "\(signalled.body)")
            let signal = try signalled.json()
            #expect(signal["applied"] == true && signal["status"] == "succeeded", "\(signalled.body)")
            #expect(try TestCluster.nodes(store, approval)["approve"]?.output == ["by": "ada"])
            let twice = try post("/api/v1/runs/\(approval)/signals", ["node": "approve"], token: operate)
            #expect(twice.status == 409, "\(twice.body)")
            #expect(try post("/api/v1/runs/\(UUID().uuidString)/cancel", nil, token: operate).status == 404)

            let actions = try TestCluster.sql().query(
                "select action from baton.audit where token_name = 'api-operate' order by id")
            #expect(
                (0..<actions.rowCount).map { actions[row: $0, column: "action"] ?? "" } == ["run.cancel", "run.retry", "run.cancel", "run.signal"])
        }

        @Test("admin makes, lists and revokes tokens; the secret is in the answer once; others get 403")
        func tokensThroughTheAPI() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let admin = try APITests.token("api-admin", "admin")
            let reader = try APITests.token("api-admin-reader", "read")
            _ = try TestCluster.sql().execute("update baton.tokens set revoked_at = now() where name = 'api-made' and revoked_at is null")
            func call(_ method: String, _ path: String, _ body: JSON? = nil, token: String) throws -> HTTPExchange.Reply {
                var headers = ["Authorization": "Bearer \(token)"]
                if body != nil { headers["Content-Type"] = "application/json" }
                return try HTTPExchange.request(method, port: port, path, headers: headers, body: body?.serialized() ?? "")
            }
            #expect(try call("POST", "/api/v1/tokens", ["name": "api-made", "scopes": ["read"]], token: reader).status == 403)
            let made = try call("POST", "/api/v1/tokens", ["name": "api-made", "scopes": ["read", "submit"], "expires_in": "12h"], token: admin)
            #expect(made.status == 201, "\(made.body)")
            let secret = try #require(try made.json()["token"]?.stringValue)
            #expect(try made.json()["scopes"] == ["read", "submit"])
            let who = try call("GET", "/api/v1/whoami", token: secret)
            #expect(who.status == 200)
            #expect(try who.json()["name"] == "api-made")
            let listed = try call("GET", "/api/v1/tokens", token: admin)
            #expect(listed.status == 200 && listed.body.contains("\"api-made\"") && !listed.body.contains(secret))
            #expect(try call("GET", "/api/v1/tokens", token: reader).status == 403, "listing tokens needs admin")
            let duplicate = try call("POST", "/api/v1/tokens", ["name": "api-made", "scopes": ["read"]], token: admin)
            #expect(duplicate.status == 409, "\(duplicate.body)")
            #expect(try call("POST", "/api/v1/tokens", ["name": "x", "scopes": ["root"]], token: admin).status == 422)
            #expect(try call("POST", "/api/v1/tokens", ["name": "x", "scopes": ["read"], "expires_in": "soon"], token: admin).status == 422)
            let revoked = try call("DELETE", "/api/v1/tokens/api-made", token: admin)
            #expect(revoked.status == 204 && revoked.body.isEmpty, "\(revoked.body)")
            #expect(try call("GET", "/api/v1/whoami", token: secret).status == 401, "a revoked token is refused at once")
            #expect(try call("DELETE", "/api/v1/tokens/api-made", token: admin).status == 404)
        }
    }
}
