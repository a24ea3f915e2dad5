import Baton
import Foundation
import Testing

extension Integration {
    /// What Schemathesis found where `baton server` and docs/api/openapi.json disagreed, each on a real server.
    @Suite("HTTP API against its document", .serialized)
    @MainActor
    struct APIConformanceTests {
        @Test("coordinators, workers' within and events' after answer as the document says")
        func answersAsDocumented() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("api-conformance", "read")
            func get(_ path: String) throws -> HTTPExchange.Reply {
                try HTTPExchange.request("GET", port: port, path, headers: ["Authorization": "Bearer \(token)"])
            }

            // `held` is required by the document (as `baton coordinators` prints it).
            var held: Int?
            try TestCluster.waitUntil(30, "the coordinator to hold its partitions") {
                held = (try? get("/api/v1/coordinators").json())?["held"]?.intValue
                return (held ?? 0) > 0
            }
            let coordinators = try get("/api/v1/coordinators").json()
            #expect(coordinators["held"]?.intValue == coordinators["partitions"]?.intValue, "\(coordinators)")

            // `within` is a duration, as the document and docs/api.md give it.
            let workers = try get("/api/v1/workers?within=30s")
            #expect(workers.status == 200, "\(workers.body)")
            #expect(try get("/api/v1/workers?within=30").status == 200, "seconds, as --within takes them")
            let bad = try get("/api/v1/workers?within=30d")
            #expect(bad.status == 400 && bad.body.contains("within: '30d' is not a duration"), "\(bad.body)")

            // Any `after` up to 2^53 - 1 is a valid request: an unknown run is then a 404, not a 400.
            let run = "0190f7a2-0000-7000-8000-000000000000"
            let after = try get("/api/v1/runs/\(run)/events?after=9007199254740990")
            #expect(after.status == 404, "\(after.body)")
        }
    }
}
