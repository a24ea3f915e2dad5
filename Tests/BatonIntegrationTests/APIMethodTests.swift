import Baton
import Foundation
import Testing

extension Integration {
    /// A real `baton server`: a known API path with a method it does not take is a 405 with `Allow`
    /// and the API's error shape; an unknown path stays a 404.
    @Suite("HTTP API methods", .serialized)
    @MainActor
    struct APIMethodTests {
        @Test("an unknown method on a known path is 405 with Allow; an unknown path is 404")
        func methodNotAllowed() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("api-methods", "admin")
            let auth = ["Authorization": "Bearer \(token)"]
            let run = "0190f7a2-0000-7000-8000-000000000000"

            let delete = try HTTPExchange.request("DELETE", port: port, "/api/v1/runs/\(run)", headers: auth)
            let deleteJSON = try delete.json()
            #expect(delete.status == 405 && delete.headers["allow"] == "GET", "\(delete.status) \(delete.headers) \(delete.body)")
            #expect(deleteJSON["error"]?["code"] == "method_not_allowed" && deleteJSON["error"]?["details"] == [], "\(delete.body)")
            #expect(deleteJSON["error"]?["message"]?.stringValue == "DELETE is not allowed on /api/v1/runs/\(run); it answers GET")
            #expect(delete.headers["content-type"]?.hasPrefix("application/json") == true)

            let cancel = try HTTPExchange.request("GET", port: port, "/api/v1/runs/\(run)/cancel", headers: auth)
            #expect(cancel.status == 405 && cancel.headers["allow"] == "POST", "\(cancel.body)")
            let revoke = try HTTPExchange.request("PATCH", port: port, "/api/v1/tokens/someone", headers: auth)
            #expect(revoke.status == 405 && revoke.headers["allow"] == "DELETE", "\(revoke.body)")
            // Without a token too: which methods a path takes is no secret (the document says it).
            #expect(try HTTPExchange.request("PUT", port: port, "/api/v1/whoami").status == 405)

            let unknown = try HTTPExchange.request("DELETE", port: port, "/api/v1/nothing-here/\(run)", headers: auth)
            let unknownJSON = try unknown.json()
            #expect(unknown.status == 404 && unknown.headers["allow"] == nil && unknownJSON["error"]?["code"] == "not_found", "\(unknown.body)")
            #expect(try HTTPExchange.request("GET", port: port, "/api/v1/runs/\(run)", headers: auth).status == 404, "a known method still answers")
        }
    }
}
