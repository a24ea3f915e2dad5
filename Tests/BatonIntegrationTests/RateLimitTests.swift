import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// `rate` on real services: at most `limit` starts per `per` for a key, from the stored times.
    @Suite("rate limits on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct RateLimitTests {
        /// A graph of `count` echo nodes sharing a rate key.
        static func graph(_ key: String, count: Int, limit: Int = 5, per: String = "1s") -> JSON {
            var nodes: [(key: String, value: JSON)] = []
            for i in 0..<count {
                nodes.append(
                    (
                        "n\(i)",
                        [
                            "procedure": "baton.echo", "input": ["i": .int(Int64(i))],
                            "rate": ["key": .string(key), "limit": .int(Int64(limit)), "per": .string(per)],
                        ]
                    ))
            }
            return ["name": "rate", "nodes": .object(JSONObject(nodes))]
        }

        /// The run's nodes' `column` times (seconds since 1970), sorted.
        static func times(_ runID: String, _ column: String) throws -> [Double] {
            let r = try TestCluster.sql().query(
                "select extract(epoch from \(column))::float8 as t from baton.nodes where run_id = $1::uuid and \(column) is not null order by 1",
                [runID])
            return (0..<r.rowCount).compactMap { r[row: $0, column: "t"].flatMap(Double.init) }
        }

        /// Windows of `per` seconds that hold more than `limit` of `times` (sorted): each as its first time.
        static func crowded(_ times: [Double], limit: Int, per: Double) -> [Double] {
            times.indices.filter { $0 + limit < times.count && times[$0 + limit] - times[$0] < per }.map { times[$0] }
        }

        static func seconds(_ runID: String) throws -> Double {
            let r = try TestCluster.sql().query(
                "select extract(epoch from finished_at - started_at)::float8 as s from baton.runs where id = $1::uuid", [runID])
            return r[row: 0, column: "s"].flatMap(Double.init) ?? -1
        }

        @Test("50 nodes at 5 per second: never more than 5 starts in a second, done in about 10 s")
        func fiftyAtFivePerSecond() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 20)
            let key = "api-\(UUID().uuidString.prefix(8).lowercased())"
            let runID = try TestCluster.submit(Self.graph(key, count: 50))
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "nodes waiting for the rate") {
                let r = try TestCluster.sql().query("select waiting, used, \"limit\" from baton.rates where key = $1", [key])
                return r.rowCount == 1 && (r.int(0, "waiting") ?? 0) > 0 && r.int(0, "used") == 5 && r.int(0, "limit") == 5
            }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            for column in ["queued_at", "started_at"] {
                let times = try Self.times(runID, column)
                #expect(times.count == 50)
                #expect(
                    Self.crowded(times, limit: 5, per: 1).isEmpty, "\(column): more than 5 in a second at \(Self.crowded(times, limit: 5, per: 1))")
            }
            let took = try Self.seconds(runID)
            #expect(took >= 8 && took <= 20, "the run took \(took) s")
            let kinds = try store.events(ofRun: runID).filter { $0.node == "n49" }.map(\.kind)
            #expect(kinds.first == "awaiting_rate", "\(kinds)")
        }

        @Test("under a coordinator SIGKILL and restart, the rate still holds")
        func rateSurvivesACoordinatorKill() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.start(["coordinator", "--lease", "2"], name: "coordinator-1")
            try cluster.startWorker(concurrency: 20)
            let key = "kill-\(UUID().uuidString.prefix(8).lowercased())"
            let runID = try TestCluster.submit(Self.graph(key, count: 50))
            let store = try TestCluster.store()
            defer { store.close() }
            try TestCluster.waitUntil(30, "a third of the nodes to succeed") {
                try TestCluster.nodes(store, runID).values.filter { $0.status == "succeeded" }.count >= 17
            }
            kill(coordinator.processIdentifier, SIGKILL)
            coordinator.waitUntilExit()
            try cluster.start(["coordinator", "--lease", "2"], name: "coordinator-2")
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 90) == "succeeded")
            for column in ["queued_at", "started_at"] {
                let times = try Self.times(runID, column)
                #expect(times.count == 50)
                #expect(
                    Self.crowded(times, limit: 5, per: 1).isEmpty, "\(column): more than 5 in a second at \(Self.crowded(times, limit: 5, per: 1))")
            }
        }

        @Test("map children share their map's rate, keyed by their item")
        func mapChildren() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker(concurrency: 10)
            let key = "map-\(UUID().uuidString.prefix(8).lowercased())"
            let items: [JSON] = (0..<6).map { ["host": .string($0 % 2 == 0 ? key + "-a" : key + "-b"), "i": .int(Int64($0))] }
            let runID = try TestCluster.submit([
                "name": "map-rate",
                "nodes": [
                    "items": ["procedure": "baton.echo", "input": .array(items)],
                    "m": [
                        "map": [
                            "over": ["$from": "items"], "procedure": "baton.echo", "input": ["$item": ""],
                            "rate": ["key": ["$item": "/host"], "limit": 1, "per": "1s"],
                        ]
                    ],
                ],
            ])
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 60) == "succeeded")
            let r = try TestCluster.sql().query(
                """
                select n.input->>'host' as host, extract(epoch from n.queued_at)::float8 as t from baton.nodes n
                where n.run_id = $1::uuid and n.key like 'm/%' order by 2
                """, [runID])
            var byHost: [String: [Double]] = [:]
            for i in 0..<r.rowCount { byHost[r[row: i, column: "host"]!, default: []].append(Double(r[row: i, column: "t"]!)!) }
            #expect(byHost.count == 2 && byHost.values.allSatisfy { $0.count == 3 })
            for (host, times) in byHost { #expect(Self.crowded(times, limit: 1, per: 1).isEmpty, "\(host): \(times)") }
            // The two keys go side by side: the run takes about 2 s, not 6.
            let took = try Self.seconds(runID)
            #expect(took < 5, "the run took \(took) s")
        }
    }
}
