import Baton
import BatonPostgres
import Foundation
import Testing

extension Integration {
    /// The PostgreSQL roles of docs/operations.md, each connected as: `baton server` does all its API
    /// holds with only `baton db-grants server`; a `read` login reads the history and not the tokens;
    /// neither may rewrite a run. Each role is made here and dropped at the end, also on failure.
    @Suite("database roles", .serialized)
    @MainActor
    struct DatabaseRoleTests {
        /// A login made for the test, with the grants `baton db-grants ROLE` prints; dropped by `drop`.
        static func login(_ role: String) throws -> String {
            let name = "baton_t_\(role)_\(UInt32.random(in: 0...UInt32.max))"
            _ = try TestCluster.sql().execute("create role \(name) login")
            let grants = try TestCluster.cli(["db-grants", role, "--user", name])
            try #require(grants.status == 0, "\(grants.stderr)")
            for statement in grants.stdout.split(separator: "\n") { _ = try TestCluster.sql().execute(String(statement)) }
            return name
        }

        static func drop(_ name: String) {
            _ = try? TestCluster.sql().execute("drop owned by \(name)")
            _ = try? TestCluster.sql().execute("drop role if exists \(name)")
        }

        static func url(as user: String) -> String {
            TestCluster.databaseURL.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://\(user)@")
        }

        @Test("a server with only the server role's grants answers every operation it has")
        func serverRole() throws {
            let user = try Self.login("server")
            defer { Self.drop(user) }
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try APITests.startServer(cluster, environment: ["BATON_DATABASE_URL": Self.url(as: user)])
            let token = try APITests.token("role-admin", "admin")
            func call(_ method: String, _ path: String, _ body: JSON? = nil) throws -> HTTPExchange.Reply {
                var headers = ["Authorization": "Bearer \(token)"]
                if body != nil { headers["Content-Type"] = "application/json" }
                let reply = try HTTPExchange.request(method, port: port, path, headers: headers, body: body?.serialized() ?? "")
                #expect(reply.status < 500, "\(method) \(path) as \(user): \(reply.status) \(reply.body)")
                return reply
            }
            let run = try call("POST", "/api/v1/runs?wait=30s", ["graph": APITests.echo])
            let runJSON = try run.json()
            #expect(run.status == 201 && runJSON["status"] == "succeeded", "\(run.body)")
            let id = try #require(runJSON["id"]?.stringValue)
            for path in [
                "/api/v1/runs", "/api/v1/runs/\(id)", "/api/v1/runs/\(id)/nodes", "/api/v1/runs/\(id)/nodes/say", "/api/v1/runs/\(id)/events",
                "/api/v1/runs/\(id)/timeline", "/api/v1/procedures", "/api/v1/workers", "/api/v1/coordinators", "/api/v1/tokens", "/api/v1/whoami",
            ] {
                #expect(try call("GET", path).status == 200, "\(path)")
            }
            #expect(try call("POST", "/api/v1/validate", ["graph": APITests.echo]).status == 200)
            let approval: JSON = ["name": "role-approval", "nodes": ["ok": ["signal": "approve"]]]
            let waiting = try #require(try call("POST", "/api/v1/runs", ["graph": approval]).json()["id"]?.stringValue)
            try TestCluster.waitUntil(30, "the signal node to wait") {
                (try? TestCluster.sql().query("select 1 from baton.nodes where run_id = $1::uuid and status = 'waiting'", [waiting]).rowCount) == 1
            }
            #expect(try call("POST", "/api/v1/runs/\(waiting)/signals?wait=20s", ["node": "ok", "value": ["by": "ada"]]).status == 202)
            let slow: JSON = ["name": "role-slow", "nodes": ["slow": ["procedure": "demo.steps", "input": ["steps": 100, "seconds": 0.2]]]]
            let long = try #require(try call("POST", "/api/v1/runs", ["graph": slow]).json()["id"]?.stringValue)
            #expect(try call("POST", "/api/v1/runs/\(long)/cancel?wait=20s", [:]).status == 202)
            #expect(try call("POST", "/api/v1/runs/\(long)/retry", [:]).status < 500)
            #expect(try call("POST", "/api/v1/tokens", ["name": "role-made", "scopes": ["read"]]).status == 201)
            #expect(try call("DELETE", "/api/v1/tokens/role-made").status == 204)

            // The server's login cannot rewrite history, whatever the server is made to do.
            let connection = try PGConnection(url: Self.url(as: user))
            for statement in ["update baton.runs set status = 'succeeded'", "delete from baton.events", "update baton.nodes set output = null"] {
                #expect(throws: PostgresError.self, "\(statement)") { try connection.execute(statement) }
            }
        }

        @Test("a read login reads the history and not the tokens, and writes nothing")
        func readRole() throws {
            let user = try Self.login("read")
            defer { Self.drop(user) }
            _ = try TestCluster.submit(APITests.echo)
            let connection = try PGConnection(url: Self.url(as: user))
            #expect((try connection.query("select count(*)::int as n from baton.runs").int(0, "n") ?? 0) >= 1)
            _ = try connection.query("select e.kind from baton.events e join baton.nodes n using (run_id) limit 1")
            for statement in ["select * from baton.tokens", "insert into baton.audit (action) values ('x')", "delete from baton.runs"] {
                #expect(throws: PostgresError.self, "\(statement)") { try connection.execute(statement) }
            }
            let bad = try TestCluster.cli(["db-grants", "writer"])
            #expect(bad.status == 2 && bad.stderr.contains("'writer' is not a role: give coordinator, server, read"), "\(bad.stderr)")
        }
    }
}
