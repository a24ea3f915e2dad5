import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `fair` on real services: one tenant's backlog does not hold back another's.
    @Suite("fair shares on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct FairShareTests {
        /// A map of `count` echo children, all with the fair key `key`.
        static func graph(_ key: String, count: Int) -> JSON {
            [
                "name": .string("fair-\(key)"),
                "nodes": [
                    "work": [
                        "map": [
                            "over": .array((0..<count).map { .int(Int64($0)) }), "procedure": "baton.echo",
                            "input": ["i": ["$item": ""]], "fair": ["key": .string(key)],
                        ]
                    ]
                ],
            ]
        }

        static func status(_ runID: String) throws -> String {
            try TestCluster.sql().query("select status from baton.runs where id = $1::uuid", [runID])[row: 0, column: "status"] ?? ""
        }

        @Test("a backlog of 3000 of tenant A, then 16 of B, one worker of 8 slots: B ends within seconds while A goes on")
        func aSmallTenantIsNotStuckBehindABacklog() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 8)
            let tag = UUID().uuidString.prefix(8).lowercased()
            let store = try TestCluster.store()
            defer { store.close() }
            let a = try TestCluster.submit(Self.graph("a-\(tag)", count: 3000))
            try TestCluster.waitUntil(30, "A's children granted their share") {
                let r = try TestCluster.sql().query(
                    "select count(*) filter (where granted) as held, count(*) filter (where not granted) as waiting from baton.holds where run_id = $1::uuid",
                    [a])
                return (r.int(0, "held") ?? 0) > 0 && (r.int(0, "waiting") ?? 0) > 100
            }
            let held = try TestCluster.sql().query("select count(*) as n from baton.holds where run_id = $1::uuid and granted", [a]).int(0, "n") ?? 0
            #expect(held <= 16, "at most twice the worker's 8 slots are dispatched ahead: \(held)")
            let submitted = Date()
            let b = try TestCluster.submit(Self.graph("b-\(tag)", count: 16))
            #expect(try TestCluster.waitForRun(b, store: store, seconds: 30) == "succeeded")
            let took = Date().timeIntervalSince(submitted)
            #expect(try Self.status(a) == "running", "A's run goes on")
            #expect(took < 5, "B's 16 nodes took \(took) s behind A's backlog")
            let kinds = try store.events(ofRun: a).filter { $0.node == "work/2999" }.map(\.kind)
            #expect(kinds.contains("awaiting_share"), "\(kinds)")
        }

        @Test("no live worker serves the pool: nothing is granted, the node waits in the coordinator")
        func noWorkerNoGrant() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 2)  // serves the default pool only
            let tag = UUID().uuidString.prefix(8).lowercased()
            let runID = try TestCluster.submit(
                ["name": "fair-nobody", "nodes": ["n": ["procedure": "baton.echo", "pool": .string("nobody-\(tag)"), "fair": ["key": "x"]]]])
            try TestCluster.waitUntil(20, "the node waiting for its share") {
                let r = try TestCluster.sql().query(
                    "select count(*) as n from baton.events where run_id = $1::uuid and kind = 'awaiting_share'", [runID])
                return (r.int(0, "n") ?? 0) == 1
            }
            let polls = Date().addingTimeInterval(5)  // two polls of every coordinator: each grants what it can
            try TestCluster.waitUntil(10, "two polls") { Date() > polls }
            let r = try TestCluster.sql().query("select count(*) as n from baton.holds where run_id = $1::uuid and not granted", [runID])
            #expect(r.int(0, "n") == 1, "the hold is still waiting")
            #expect(try Self.status(runID) == "running")
        }
    }
}
